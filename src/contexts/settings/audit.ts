import { tenantSettingsAggregate } from '../../../streams/settings/tenant-settings';
import { userBudgetOverrideAggregate } from '../../../streams/settings/user-budget-override';
import { type AuditCatalog, shown } from '../../platform/audit/catalog';
import { findUsers } from '../identity';

/** Settings: the tenant's settings (`--settings tenant`) and each user's budget override (`--user`). */
export const settingsAuditCatalog: AuditCatalog = {
  aggregates: [
    {
      kind: 'tenant-settings',
      aggregate: tenantSettingsAggregate,
      hiddenFields: ['updatedBy', 'updatedAt'],
      describe(event) {
        const changes = (event.data as { changes: Record<string, { from: unknown; to: unknown }> }).changes;
        const parts = Object.entries(changes).map(([name, c]) => `${name} from ${shown(c.from)} to ${shown(c.to)}`);
        return `settings changed: ${parts.join('; ')}`;
      },
    },
    { kind: 'user-budget-override', aggregate: userBudgetOverrideAggregate, hiddenFields: ['updatedBy', 'updatedAt'] },
  ],
  finders: [
    {
      flag: 'settings',
      value: 'tenant',
      async find(_lookup, tenantId, value) {
        return value === 'tenant' ? [{ kind: 'tenant-settings', id: tenantId, title: 'tenant settings' }] : [];
      },
    },
    {
      flag: 'user',
      value: '<email|id>',
      async find(lookup, tenantId, value) {
        return (await findUsers(lookup, tenantId, value)).map((u) => ({
          kind: 'user-budget-override',
          id: u.id,
          title: `budget override ${u.email}`,
        }));
      },
    },
  ],
};
