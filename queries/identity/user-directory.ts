import type { Knex } from 'knex';
import { USERS_TABLE } from '../../projections/identity/user-directory';
import type { Role } from '../../streams/identity/permissions';

export interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
  display_name: string | null;
  roles: Role[];
  status: 'invited' | 'active' | 'disabled';
  kind: 'person' | 'system';
  token_version: number;
  password_ref: string | null;
}

const COLUMNS = [
  'id',
  'tenant_id',
  'email',
  'display_name',
  'roles',
  'status',
  'kind',
  'token_version',
  'password_ref',
];

/** The admin directory's row shape; invited accounts count as not deactivated. */
export function adminView(row: UserRow) {
  return {
    id: row.id,
    email: row.email,
    display_name: row.display_name,
    roles: row.roles,
    is_active: row.status !== 'disabled',
    status: row.status,
  };
}

export async function findUserById(knex: Knex, userId: string): Promise<UserRow | null> {
  return (await knex(USERS_TABLE).select(COLUMNS).where({ id: userId }).first()) ?? null;
}

export async function findUserInTenant(knex: Knex, tenantId: string, userId: string): Promise<UserRow | null> {
  return (await knex(USERS_TABLE).select(COLUMNS).where({ id: userId, tenant_id: tenantId }).first()) ?? null;
}

/** E-mail is unique on its lower-cased form across all tenants (login names no tenant). */
export async function findUserByEmail(knex: Knex, email: string): Promise<UserRow | null> {
  return (await knex(USERS_TABLE).select(COLUMNS).where({ email: email.toLowerCase() }).first()) ?? null;
}

/** People of a tenant (system accounts are attribution only, never listed). */
export async function listTenantUsers(knex: Knex, tenantId: string): Promise<UserRow[]> {
  return knex(USERS_TABLE)
    .select(COLUMNS)
    .where({ tenant_id: tenantId, kind: 'person' })
    .orderBy([{ column: 'email' }]);
}

/** The tenant's active admins as the directory lists them: where an empty admin roster starts. */
export async function activeAdminIds(knex: Knex, tenantId: string): Promise<string[]> {
  const rows = await knex(USERS_TABLE)
    .select('id')
    .where({ tenant_id: tenantId, status: 'active', kind: 'person' })
    .whereRaw(`roles @> '["admin"]'::jsonb`)
    .orderBy('id');
  return rows.map((r: { id: string }) => r.id);
}

/**
 * The names behind user ids of a tenant, for pages that show who asked, decided or imported.
 * System accounts are included (they are named, e.g. "System"); ids of no account are left out.
 */
export async function namesOf(knex: Knex, tenantId: string, ids: string[]) {
  const uuids = ids.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
  if (uuids.length === 0) return [];
  const rows = await knex(USERS_TABLE)
    .select('id', 'email', 'display_name', 'kind')
    .where({ tenant_id: tenantId })
    .whereIn('id', uuids);
  return rows.map((r: Pick<UserRow, 'id' | 'email' | 'display_name' | 'kind'>) => ({
    id: r.id,
    display_name: r.display_name,
    email: r.email,
    kind: r.kind,
  }));
}
