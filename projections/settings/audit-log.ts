import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { AUDIT_ACTIONS, type BudgetCaps, SETTING_NAMES, WIRE_NAMES } from '../../streams/settings/fields';
import { readTenantSettingsEvent } from '../../streams/settings/tenant-settings';
import { readUserBudgetOverrideEvent } from '../../streams/settings/user-budget-override';

/**
 * The settings audit trail for admins (GET /settings/audit-log): who changed what, when,
 * as `{field: {from, to}}` in the wire names. The signed event log stays the source of truth.
 */
export const SETTINGS_AUDIT_TABLE = 'settings_audit_log';

type Changes = Record<string, { from: unknown; to: unknown }>;

function capChanges(previous: BudgetCaps | null, next: BudgetCaps | null): Changes {
  const changes: Changes = {};
  const pairs: Array<[keyof BudgetCaps, string]> = [
    ['maxTokensPerDay', 'max_tokens_per_day'],
    ['maxCostUsdPerDay', 'max_cost_usd_per_day'],
  ];
  for (const [name, wire] of pairs) {
    const from = previous?.[name] ?? null;
    const to = next?.[name] ?? null;
    if (from !== to) changes[wire] = { from, to };
  }
  return changes;
}

function entryOf(event: RecordedEvent): { action: string; targetUserId: string | null; changes: Changes; at: string } {
  const action = typeof event.metadata.action === 'string' ? event.metadata.action : null;
  if (event.type === 'TenantSettingsUpdated') {
    const { data } = readTenantSettingsEvent(event);
    const changes: Changes = {};
    for (const name of SETTING_NAMES) {
      const change = data.changes[name];
      if (change) changes[WIRE_NAMES[name]] = change;
    }
    return { action: action ?? AUDIT_ACTIONS.update, targetUserId: null, changes, at: data.updatedAt };
  }
  const parsed = readUserBudgetOverrideEvent(event);
  switch (parsed.type) {
    case 'UserBudgetOverrideUpserted': {
      const { data } = parsed;
      const next = { maxTokensPerDay: data.maxTokensPerDay, maxCostUsdPerDay: data.maxCostUsdPerDay };
      return {
        action: action ?? AUDIT_ACTIONS.overrideUpsert,
        targetUserId: data.userId,
        changes: capChanges(data.previous, next),
        at: data.updatedAt,
      };
    }
    case 'UserBudgetOverrideDeleted':
      return {
        action: action ?? AUDIT_ACTIONS.overrideDelete,
        targetUserId: parsed.data.userId,
        changes: capChanges(parsed.data.previous, null),
        at: parsed.data.deletedAt,
      };
  }
}

export const settingsAuditLogProjector: Projector = {
  name: 'settings_audit_log',
  consistency: 'inline',
  version: 1,
  tables: [SETTINGS_AUDIT_TABLE],
  eventTypes: ['TenantSettingsUpdated', 'UserBudgetOverrideUpserted', 'UserBudgetOverrideDeleted'],
  async createTables(knex) {
    await knex.schema.createTable(SETTINGS_AUDIT_TABLE, (t) => {
      // Insertion follows the log, so `seq` orders entries as the log does.
      t.bigIncrements('seq').primary();
      t.uuid('event_id').notNullable().unique();
      t.text('tenant_id').notNullable();
      t.text('action').notNullable();
      t.text('actor_id').notNullable();
      t.text('target_user_id');
      t.jsonb('changes').notNullable();
      t.timestamp('at', { useTz: true }).notNullable();
      t.index(['tenant_id', 'seq']);
    });
  },
  async apply(trx, event) {
    const entry = entryOf(event);
    await trx(SETTINGS_AUDIT_TABLE)
      .insert({
        event_id: event.id,
        tenant_id: event.metadata.tenantId,
        action: entry.action,
        actor_id: event.metadata.actorId,
        target_user_id: entry.targetUserId,
        changes: JSON.stringify(entry.changes),
        at: entry.at,
      })
      .onConflict('event_id')
      .ignore();
  },
};
