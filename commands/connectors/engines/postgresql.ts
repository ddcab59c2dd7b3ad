import { Client, type ClientConfig } from 'pg';
import { z } from 'zod';
import { type ConnectorEngine, type EngineRun, jsonValue, withoutTrailingSemicolon } from './engine';

/** Engine R: PostgreSQL over `pg`, password login, TLS per `sslmode`. */

const PostgresConfig = z
  .object({
    host: z
      .string()
      .trim()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.:\-[\]]+$/, 'a host name or IP address'),
    port: z.number().int().min(1).max(65535).default(5432),
    database: z.string().min(1).max(63),
    sslmode: z.enum(['disable', 'require', 'verify-ca', 'verify-full']).default('require'),
  })
  .strict();

const PostgresCredential = z
  .object({ username: z.string().min(1).max(63), password: z.string().min(1).max(1024) })
  .strict();

const SYSTEM_SCHEMAS = `('pg_catalog', 'information_schema')`;

/** Roles whose membership lets a session read or write the server's files or signal backends. */
const DANGEROUS_ROLES = [
  'pg_read_server_files',
  'pg_write_server_files',
  'pg_execute_server_program',
  'pg_signal_backend',
  'pg_write_all_data',
  'pg_database_owner',
];

function sslOptions(config: z.infer<typeof PostgresConfig>, host: string): ClientConfig['ssl'] {
  switch (config.sslmode) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false, servername: host };
    case 'verify-ca':
      return { rejectUnauthorized: true, servername: host, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true, servername: host };
  }
}

/**
 * A fresh client on the pinned address. statement_timeout and
 * idle_in_transaction_session_timeout travel in the startup packet, so they hold from the
 * first statement on and nothing the query does can be slower than them.
 */
async function connect(run: EngineRun): Promise<Client> {
  const config = PostgresConfig.parse(run.config);
  const credential = PostgresCredential.parse(run.credential);
  const client = new Client({
    host: run.address,
    port: config.port,
    database: config.database,
    user: credential.username,
    password: credential.password,
    ssl: sslOptions(config, run.host),
    connectionTimeoutMillis: run.limits.connectTimeoutMs,
    statement_timeout: run.limits.statementTimeoutMs,
    idle_in_transaction_session_timeout: run.limits.statementTimeoutMs,
    query_timeout: run.limits.statementTimeoutMs + 1000,
    application_name: 'compliance-platform-connector',
  });
  // A server that drops the connection must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    // The driver's error may carry the credential: only the redacted message travels on.
    // eslint-disable-next-line preserve-caught-error -- attaching the cause would leak the password
    throw new Error(`could not connect: ${(error as Error).message.replace(credential.password, '***')}`);
  }
  return client;
}

async function withClient<T>(run: EngineRun, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(run);
  // The hard stop: a source that never answers is cut, whatever the driver is waiting for.
  const deadline = setTimeout(
    () => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(),
    run.limits.statementTimeoutMs + 3000,
  );
  try {
    return await work(client);
  } finally {
    clearTimeout(deadline);
    await client.end().catch(() => undefined);
  }
}

export const postgresqlEngine: ConnectorEngine = {
  key: 'postgresql',
  title: 'PostgreSQL',
  configSchema: PostgresConfig as never,
  credentialSchema: PostgresCredential as never,
  credentialFields: ['password', 'username'],
  capabilities: {
    read_only:
      'probe proves the role holds no INSERT/UPDATE/DELETE/TRUNCATE privilege, owns nothing, is not superuser and is in no file/signal role; every run is BEGIN READ ONLY',
    egress_pinning:
      'host resolved once, every address checked, the connection goes to the checked address (TLS name kept for verify-full)',
    timeouts:
      'statement_timeout and idle_in_transaction_session_timeout set in the startup packet; connect timeout; a hard client-side deadline',
    row_cap: true,
    parameters: 'named (:name), bound as $n by the driver',
    session_state: 'a fresh connection per run, closed afterwards',
  },
  hostOf: (config) => String(config.host),

  async probe(run) {
    return withClient(run, async (client) => {
      const reasons: string[] = [];
      const role = (
        await client.query(
          `select current_user as name, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, version() as version from pg_roles where rolname = current_user`,
        )
      ).rows[0];
      if (role.rolsuper) reasons.push(`role ${role.name} is a superuser`);
      if (role.rolcreaterole) reasons.push(`role ${role.name} can create roles`);
      if (role.rolcreatedb) reasons.push(`role ${role.name} can create databases`);
      if (role.rolreplication) reasons.push(`role ${role.name} has the replication attribute`);
      if (role.rolbypassrls) reasons.push(`role ${role.name} bypasses row-level security`);
      const memberships = await client.query(
        `select r.rolname from pg_roles r where r.rolname = any($1) and pg_has_role(current_user, r.oid, 'MEMBER')`,
        [DANGEROUS_ROLES],
      );
      for (const m of memberships.rows) reasons.push(`role is a member of ${m.rolname}`);
      const writable = await client.query(
        `select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where c.relkind in ('r', 'p', 'v', 'm', 'f') and n.nspname not in ${SYSTEM_SCHEMAS} and n.nspname not like 'pg_toast%'
            and (has_any_column_privilege(c.oid, 'INSERT, UPDATE') or has_table_privilege(c.oid, 'DELETE, TRUNCATE'))
          order by 1 limit 5`,
      );
      for (const t of writable.rows) reasons.push(`can write to table ${t.name} (INSERT/UPDATE/DELETE/TRUNCATE)`);
      const owned = await client.query(
        `select kind, name from (
           select 'relation' as kind, n.nspname || '.' || c.relname as name, c.relowner as owner from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname not in ${SYSTEM_SCHEMAS} and n.nspname not like 'pg_toast%' and n.nspname not like 'pg_temp%'
           union all select 'schema', nspname, nspowner from pg_namespace where nspname not in ${SYSTEM_SCHEMAS} and nspname not like 'pg_%'
           union all select 'function', n.nspname || '.' || p.proname, p.proowner from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ${SYSTEM_SCHEMAS}
           union all select 'database', datname, datdba from pg_database where datname = current_database()
         ) o where pg_has_role(current_user, owner, 'USAGE') order by 1, 2 limit 5`,
      );
      for (const o of owned.rows) reasons.push(`owns ${o.kind} ${o.name}`);
      const creatable = await client.query(
        `select nspname from pg_namespace where nspname not in ${SYSTEM_SCHEMAS} and nspname not like 'pg_%' and has_schema_privilege(oid, 'CREATE') order by 1 limit 5`,
      );
      for (const s of creatable.rows) reasons.push(`can CREATE objects in schema ${s.nspname}`);
      if ((await client.query(`select has_database_privilege(current_database(), 'CREATE') as can`)).rows[0].can)
        reasons.push('can CREATE schemas in the database');
      return {
        ok: reasons.length === 0,
        reasons,
        serverVersion: String(role.version).split(' ').slice(0, 2).join(' '),
      };
    });
  },

  async discover(run, maxColumns) {
    return withClient(run, async (client) => {
      await client.query('BEGIN READ ONLY');
      const { rows } = await client.query(
        `select table_schema, table_name, column_name, data_type, is_nullable from information_schema.columns
          where table_schema not in ${SYSTEM_SCHEMAS} and table_schema not like 'pg_%'
          order by table_schema, table_name, ordinal_position limit $1`,
        [maxColumns + 1],
      );
      await client.query('ROLLBACK');
      const truncated = rows.length > maxColumns;
      const tables = new Map<
        string,
        { schema: string; name: string; columns: { name: string; type: string; nullable: boolean }[] }
      >();
      for (const r of rows.slice(0, maxColumns)) {
        const id = `${r.table_schema}.${r.table_name}`;
        if (!tables.has(id)) tables.set(id, { schema: r.table_schema, name: r.table_name, columns: [] });
        tables.get(id)!.columns.push({ name: r.column_name, type: r.data_type, nullable: r.is_nullable === 'YES' });
      }
      return { tables: [...tables.values()], truncated };
    });
  },

  async execute(run, boundSql, values, rowCap) {
    return withClient(run, async (client) => {
      await client.query('BEGIN READ ONLY');
      try {
        // The cap is applied by the server: the exposure is a sub-select of a LIMITed query.
        const text = `select * from (\n${withoutTrailingSemicolon(boundSql)}\n) as exposure limit ${rowCap + 1}`;
        const result = await client.query({ text, values, rowMode: 'array' });
        const types = await typeNames(
          client,
          result.fields.map((f) => f.dataTypeID),
        );
        const rows = (result.rows as unknown[][]).slice(0, rowCap).map((row) => row.map(jsonValue));
        return {
          columns: result.fields.map((f) => ({ name: f.name, type: types.get(f.dataTypeID) ?? String(f.dataTypeID) })),
          rows,
          truncated: result.rows.length > rowCap,
        };
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
      }
    });
  },
};

async function typeNames(client: Client, oids: number[]): Promise<Map<number, string>> {
  if (oids.length === 0) return new Map();
  const { rows } = await client.query(
    `select oid::int as oid, format_type(oid, null) as name from pg_type where oid = any($1)`,
    [oids],
  );
  return new Map(rows.map((r) => [r.oid as number, r.name as string]));
}
