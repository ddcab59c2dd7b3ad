import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

/**
 * Least privilege for the running platform. When the configured connection is
 * a superuser (the embedded default, a fresh development server), migrations run with it
 * and then the platform connects as its own role, which
 *
 * - is not superuser and cannot create roles or databases;
 * - owns every platform table (read models, checkpoints, snapshots, secrets, `streams`,
 *   knex's migration records), so projections can create, rebuild and drop their tables
 *   and `ops migrate` works on its URL too (a migration that alters `events` needs the
 *   superuser's);
 * - holds SELECT and INSERT on `events` and nothing else there: `events` stays owned by
 *   the migrating role, so no bug in the application can UPDATE, DELETE or TRUNCATE the
 *   log (the append-only trigger stays as a second wall).
 *
 * Its password is derived from SECRET_STORE_KEY, so every instance sharing that key
 * connects with the same one. With a non-superuser DATABASE_URL nothing is created: the
 * platform connects as given, and a warning says when that role can rewrite `events`.
 */
export const EVENT_LOG_TABLES = ['events'];

export function appRolePassword(secret: string, role: string): string {
  return createHmac('sha256', secret).update(`database-role:${role}`).digest('base64url');
}

export function withCredentials(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(user);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

export async function isSuperuser(knex: Knex): Promise<boolean> {
  const { rows } = await knex.raw<{ rows: Array<{ rolsuper: boolean }> }>(
    'SELECT rolsuper FROM pg_roles WHERE rolname = current_user',
  );
  return rows[0]?.rolsuper === true;
}

/**
 * Creates or updates the platform role and hands it the platform's tables, in one
 * transaction serialised by an advisory lock (several instances may start at once).
 */
export async function prepareAppRole(admin: Knex, role: string, password: string): Promise<void> {
  await admin.transaction(async (trx) => {
    await trx.raw("SELECT pg_advisory_xact_lock(hashtext('platform:app-role'))");
    const { rows: existing } = await trx.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_roles WHERE rolname = ?', [role]);
    const attributes = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${literal(password)}`;
    if (existing.length === 0) await trx.raw(`CREATE ROLE ${ident(role)} ${attributes}`);
    else await trx.raw(`ALTER ROLE ${ident(role)} ${attributes}`);
    const { rows: db } = await trx.raw<{ rows: Array<{ name: string }> }>('SELECT current_database() AS name');
    await trx.raw(`GRANT CONNECT, TEMPORARY, CREATE ON DATABASE ${ident(db[0].name)} TO ${ident(role)}`);
    await trx.raw(`GRANT USAGE, CREATE ON SCHEMA public TO ${ident(role)}`);
    const { rows: tables } = await trx.raw<{ rows: Array<{ name: string; owner: string }> }>(
      "SELECT tablename AS name, tableowner AS owner FROM pg_tables WHERE schemaname = 'public'",
    );
    for (const table of tables) {
      if (EVENT_LOG_TABLES.includes(table.name)) {
        await trx.raw(`REVOKE ALL ON ${ident(table.name)} FROM PUBLIC, ${ident(role)}`);
        await trx.raw(`GRANT SELECT, INSERT ON ${ident(table.name)} TO ${ident(role)}`);
      } else if (table.owner !== role) {
        await trx.raw(`ALTER TABLE ${ident(table.name)} OWNER TO ${ident(role)}`);
      }
    }
  });
}

/** Privileges on `events` the connected role holds that it should not. */
export async function eventLogOverreach(knex: Knex): Promise<string[]> {
  const held: string[] = [];
  for (const privilege of ['UPDATE', 'DELETE', 'TRUNCATE']) {
    const { rows } = await knex.raw<{ rows: Array<{ has: boolean }> }>(
      "SELECT has_table_privilege(current_user, 'events', ?) AS has",
      [privilege],
    );
    if (rows[0]?.has) held.push(privilege);
  }
  return held;
}

/**
 * The URL the platform should run on: the app role's when `adminUrl` is a superuser (after
 * preparing the role), else `adminUrl` itself.
 */
export async function leastPrivilegeUrl(
  admin: Knex,
  adminUrl: string,
  options: { role: string | null; secret: string; logger: Logger },
): Promise<string> {
  if (!options.role) return adminUrl;
  if (await isSuperuser(admin)) {
    const password = appRolePassword(options.secret, options.role);
    await prepareAppRole(admin, options.role, password);
    options.logger.info(
      { role: options.role },
      'connecting as the platform role (not superuser; SELECT and INSERT only on events)',
    );
    return withCredentials(adminUrl, options.role, password);
  }
  const overreach = await eventLogOverreach(admin);
  if (overreach.length > 0) {
    options.logger.warn(
      { privileges: overreach },
      `the database role of DATABASE_URL holds ${overreach.join(', ')} on events: the application could rewrite history (see the README: least privilege)`,
    );
  }
  return adminUrl;
}
