import { USERS_TABLE } from '../../../projections/identity/user-directory';
import { userEvolution, type UserState } from '../../../streams/identity/user';
import { type AuditCatalog, type AuditLookup, type AuditTarget, shown } from '../../platform/audit/catalog';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--user <email|id>` and `--actor <email>`: the directory row of this tenant's account. */
export async function findUsers(
  lookup: AuditLookup,
  tenantId: string,
  value: string,
): Promise<Array<{ id: string; email: string }>> {
  const query = lookup.knex(USERS_TABLE).select('id', 'email').where({ tenant_id: tenantId });
  const rows: Array<{ id: string; email: string }> = UUID.test(value)
    ? await query.andWhere({ id: value.toLowerCase() })
    : await query.andWhereRaw('lower(email) = lower(?)', [value.trim()]);
  return rows;
}

const roles = (state: unknown) => (state as Extract<UserState, { roles: unknown }>).roles ?? [];

/** Identity: user accounts, found by e-mail or id. */
export const identityAuditCatalog: AuditCatalog = {
  aggregates: [
    {
      kind: 'user',
      aggregate: userEvolution,
      hiddenFields: ['openTokens', 'passwordRef'],
      describe(event, before, after) {
        switch (event.type) {
          case 'RolesChanged':
            return `roles changed from ${shown(roles(before))} to ${shown(roles(after))}`;
          case 'UserInvited':
          case 'UserRegistered': {
            const data = event.data as { email: string; roles: string[] };
            return `${event.type === 'UserInvited' ? 'invited' : 'registered'} ${data.email} with roles ${shown(data.roles)}`;
          }
          case 'PasswordSet':
            return 'password set (the hash stays in the secret store)';
          case 'TokenVersionBumped':
            return `sessions revoked (${(event.data as { reason: string }).reason.replace(/_/g, ' ')})`;
          default:
            return undefined;
        }
      },
    },
  ],
  finders: [
    {
      flag: 'user',
      value: '<email|id>',
      async find(lookup, tenantId, value): Promise<AuditTarget[]> {
        return (await findUsers(lookup, tenantId, value)).map((u) => ({
          kind: 'user',
          id: u.id,
          title: `user ${u.email}`,
        }));
      },
    },
  ],
};
