import type { Knex } from 'knex';
import { SETTINGS_AUDIT_TABLE } from '../../projections/settings/audit-log';

export interface SettingsAuditEntry {
  id: string;
  action: string;
  actor_id: string;
  target_user_id: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  at: string;
}

/** GET /settings/audit-log: newest first; `before` is the `id` of the last entry of the previous page. */
export async function listSettingsAudit(
  knex: Knex,
  tenantId: string,
  options: { limit: number; action?: string; before?: string },
): Promise<SettingsAuditEntry[]> {
  const query = knex(SETTINGS_AUDIT_TABLE).where({ tenant_id: tenantId });
  if (options.action) query.andWhere({ action: options.action });
  if (options.before) {
    query.andWhere(
      'seq',
      '<',
      knex(SETTINGS_AUDIT_TABLE).select('seq').where({ event_id: options.before, tenant_id: tenantId }),
    );
  }
  const rows = await query.orderBy('seq', 'desc').limit(options.limit);
  return rows.map((r) => ({
    id: r.event_id,
    action: r.action,
    actor_id: r.actor_id,
    target_user_id: r.target_user_id ?? null,
    changes: r.changes,
    at: (r.at instanceof Date ? r.at : new Date(r.at)).toISOString(),
  }));
}
