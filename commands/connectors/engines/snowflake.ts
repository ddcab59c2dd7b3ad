import { createPrivateKey } from 'node:crypto';
import type * as SnowflakeSdk from 'snowflake-sdk';
import { z } from 'zod';
import { type ConnectorEngine, type EngineRun, jsonValue, withoutTrailingSemicolon } from './engine';

/**
 * Engine W: Snowflake over `snowflake-sdk`, key-pair (SNOWFLAKE_JWT) login only. Snowflake
 * has no read-only transaction, so read-only rests on the probe's proof (the role and every
 * role it inherits hold only USAGE/SELECT/REFERENCES/MONITOR/READ), on secondary roles being
 * switched off in each session, and on the validator with MULTI_STATEMENT_COUNT = 1.
 */

const SnowflakeConfig = z
  .object({
    account: z
      .string()
      .trim()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/,
        'an account locator such as xy12345.us-east-1 or orgname-accountname',
      ),
    warehouse: z.string().min(1).max(255),
    database: z.string().min(1).max(255),
    schema: z.string().min(1).max(255),
    role: z.string().min(1).max(255).optional(),
  })
  .strict();

const PEM = /^-----BEGIN (ENCRYPTED )?PRIVATE KEY-----[\s\S]+-----END (ENCRYPTED )?PRIVATE KEY-----\s*$/;

const SnowflakeCredential = z
  .object({
    username: z.string().min(1).max(255),
    private_key: z
      .string()
      .max(16_384)
      .refine((pem) => PEM.test(pem.trim()), 'a PEM PKCS#8 private key (BEGIN PRIVATE KEY)')
      .refine((pem) => {
        try {
          return createPrivateKey(pem).asymmetricKeyType === 'rsa';
        } catch {
          return false;
        }
      }, 'an unencrypted RSA private key'),
  })
  .strict();

type Snowflake = typeof SnowflakeSdk;
let loaded: Snowflake | null = null;
/**
 * Loaded on first use: the driver pulls in the AWS and Azure SDKs (and their start-up
 * warnings), which a platform without a Snowflake connector never needs.
 */
const driver = (): Snowflake => (loaded ??= require('snowflake-sdk') as Snowflake);

const READ_PRIVILEGES = new Set(['USAGE', 'SELECT', 'REFERENCES', 'MONITOR', 'READ']);
const MAX_INHERITED_ROLES = 25;

type Row = Record<string, unknown>;

/** The driver's callback API as promises; the only place that touches snowflake-sdk. */
function execute(
  connection: SnowflakeSdk.Connection,
  sqlText: string,
  binds: unknown[],
  parameters: Record<string, unknown>,
): Promise<{ rows: Row[] | unknown[][]; columns: { name: string; type: string }[] }> {
  return new Promise((resolve, reject) => {
    connection.execute({
      sqlText,
      binds: binds as SnowflakeSdk.Binds,
      parameters,
      complete: (error, statement, rows) => {
        if (error) return reject(error);
        const columns = (statement.getColumns() ?? []).map((c) => ({ name: c.getName(), type: c.getType() }));
        resolve({ rows: (rows ?? []) as Row[], columns });
      },
    });
  });
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function withConnection<T>(
  run: EngineRun,
  work: (connection: SnowflakeSdk.Connection, timeoutS: number) => Promise<T>,
): Promise<T> {
  const config = SnowflakeConfig.parse(run.config);
  const credential = SnowflakeCredential.parse(run.credential);
  const snowflake = driver();
  snowflake.configure({ logLevel: 'OFF' } as never);
  const connection = snowflake.createConnection({
    account: config.account,
    username: credential.username,
    authenticator: 'SNOWFLAKE_JWT',
    privateKey: credential.private_key,
    warehouse: config.warehouse,
    database: config.database,
    schema: config.schema,
    role: config.role,
    application: 'compliance-platform-connector',
    timeout: run.limits.connectTimeoutMs,
  } as SnowflakeSdk.ConnectionOptions);
  const timeoutS = Math.max(1, Math.ceil(run.limits.statementTimeoutMs / 1000));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the source did not answer within ${run.limits.statementTimeoutMs + run.limits.connectTimeoutMs} ms`,
          ),
        ),
      run.limits.statementTimeoutMs + run.limits.connectTimeoutMs,
    );
  });
  try {
    return await Promise.race([
      (async () => {
        await connection.connectAsync();
        // Secondary roles would add their privileges to the session; the proof covers one role.
        await execute(connection, 'USE SECONDARY ROLES NONE', [], {});
        return work(connection, timeoutS);
      })(),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
    await new Promise<void>((resolve) => connection.destroy(() => resolve()));
  }
}

export const snowflakeEngine: ConnectorEngine = {
  key: 'snowflake',
  title: 'Snowflake',
  configSchema: SnowflakeConfig as never,
  credentialSchema: SnowflakeCredential as never,
  credentialFields: ['private_key', 'username'],
  capabilities: {
    read_only:
      'probe proves the session role and every role it inherits hold only USAGE/SELECT/REFERENCES/MONITOR/READ; secondary roles are switched off per session; one statement per call (MULTI_STATEMENT_COUNT=1)',
    egress_pinning:
      'the host is <account>.snowflakecomputing.com, resolved and checked before every run; the driver connects by name (TLS needs it)',
    timeouts: 'STATEMENT_TIMEOUT_IN_SECONDS per statement; login timeout; a hard client-side deadline',
    row_cap: true,
    parameters: 'named (:name), bound as :n by the driver',
    session_state: 'a fresh connection per run, destroyed afterwards',
    login: 'key-pair (SNOWFLAKE_JWT) only; no password login',
  },
  hostOf: (config) => `${String(config.account)}.snowflakecomputing.com`,

  async probe(run) {
    return withConnection(run, async (connection, timeoutS) => {
      const params = { STATEMENT_TIMEOUT_IN_SECONDS: timeoutS };
      const who = (
        await execute(connection, 'select current_role() as "ROLE", current_version() as "VERSION"', [], params)
      ).rows[0] as Row;
      const reasons: string[] = [];
      const seen = new Set<string>();
      const queue = [String(who.ROLE)];
      while (queue.length > 0 && seen.size < MAX_INHERITED_ROLES) {
        const role = queue.shift()!;
        if (seen.has(role)) continue;
        seen.add(role);
        const grants = (await execute(connection, `show grants to role ${quoteIdent(role)}`, [], params)).rows as Row[];
        for (const grant of grants) {
          const privilege = String(grant.privilege ?? '').toUpperCase();
          const on = String(grant.granted_on ?? '').toUpperCase();
          if (on === 'ROLE' && privilege === 'USAGE') queue.push(String(grant.name).replace(/^"|"$/g, ''));
          else if (!READ_PRIVILEGES.has(privilege))
            reasons.push(`role ${role} holds ${privilege} on ${on.toLowerCase()} ${String(grant.name)}`);
        }
      }
      if (['ACCOUNTADMIN', 'SECURITYADMIN', 'SYSADMIN', 'USERADMIN', 'ORGADMIN'].some((r) => seen.has(r)))
        reasons.push('the role is or inherits a system administration role');
      return {
        ok: reasons.length === 0,
        reasons: reasons.slice(0, 20),
        serverVersion: `Snowflake ${String(who.VERSION)}`,
      };
    });
  },

  async discover(run, maxColumns) {
    return withConnection(run, async (connection, timeoutS) => {
      const { rows } = await execute(
        connection,
        `select table_schema, table_name, column_name, data_type, is_nullable from information_schema.columns where table_schema <> 'INFORMATION_SCHEMA' order by table_schema, table_name, ordinal_position limit ${maxColumns + 1}`,
        [],
        { STATEMENT_TIMEOUT_IN_SECONDS: timeoutS },
      );
      const list = rows as Row[];
      const tables = new Map<
        string,
        { schema: string; name: string; columns: { name: string; type: string; nullable: boolean }[] }
      >();
      for (const r of list.slice(0, maxColumns)) {
        const id = `${r.TABLE_SCHEMA}.${r.TABLE_NAME}`;
        if (!tables.has(id))
          tables.set(id, { schema: String(r.TABLE_SCHEMA), name: String(r.TABLE_NAME), columns: [] });
        tables
          .get(id)!
          .columns.push({ name: String(r.COLUMN_NAME), type: String(r.DATA_TYPE), nullable: r.IS_NULLABLE === 'YES' });
      }
      return { tables: [...tables.values()], truncated: list.length > maxColumns };
    });
  },

  async execute(run, boundSql, values, rowCap) {
    return withConnection(run, async (connection, timeoutS) => {
      const text = `select * from (\n${withoutTrailingSemicolon(boundSql)}\n) limit ${rowCap + 1}`;
      const result = await execute(connection, text, values, {
        STATEMENT_TIMEOUT_IN_SECONDS: timeoutS,
        MULTI_STATEMENT_COUNT: 1,
      });
      const names = result.columns.map((c) => c.name);
      const rows = (result.rows as Row[]).slice(0, rowCap).map((row) => names.map((n) => jsonValue(row[n])));
      return { columns: result.columns, rows, truncated: result.rows.length > rowCap };
    });
  },
};
