import type { Knex } from 'knex';
import { EVENT_HISTORY_TABLE, EVENTS_TABLE } from '../../projections/monitoring/operational-events';
import type { LoggedEvent } from '../../streams/monitoring/operational-event';

/** Logged operational events: list with filters and paging, one event, its history. */

const iso = (d: Date | string) => new Date(d).toISOString();

export const eventView = (r: any) => ({
  id: r.id,
  event_type_id: r.event_type_id,
  entity_id: r.entity_id,
  entity_type: r.entity_type,
  occurred_at: iso(r.occurred_at),
  fields: r.fields,
  version: r.version,
  anomaly_flagged: r.anomaly_flagged,
  logged_by: r.logged_by,
  logged_at: iso(r.logged_at),
  updated_by: r.updated_by,
  updated_at: iso(r.updated_at),
});
export type EventView = ReturnType<typeof eventView>;

/** The same view from the state a command left, so a write answers without waiting on the read model. */
export const eventViewOf = (e: LoggedEvent): EventView =>
  eventView({
    id: e.eventId,
    event_type_id: e.eventTypeId,
    entity_id: e.entityId,
    entity_type: e.entityType,
    occurred_at: e.occurredAt,
    fields: e.fields,
    version: e.version,
    anomaly_flagged: e.anomalyFlagged,
    logged_by: e.loggedBy,
    logged_at: e.loggedAt,
    updated_by: e.updatedBy,
    updated_at: e.updatedAt,
  });

export interface EventFilter {
  entity_id?: string;
  event_type_id?: string;
  from_date?: string;
  to_date?: string;
  limit: number;
  offset: number;
}

/** Newest first (by `occurred_at`, then id for a stable page order). `from_date` and `to_date` are inclusive. */
export async function listEvents(knex: Knex, tenantId: string, filter: EventFilter) {
  const base = knex(EVENTS_TABLE).where({ tenant_id: tenantId });
  if (filter.entity_id) base.andWhere({ entity_id: filter.entity_id });
  if (filter.event_type_id) base.andWhere({ event_type_id: filter.event_type_id });
  if (filter.from_date) base.andWhere('occurred_at', '>=', filter.from_date);
  if (filter.to_date) base.andWhere('occurred_at', '<=', filter.to_date);
  const [rows, count] = await Promise.all([
    base
      .clone()
      .select('*')
      .orderBy([
        { column: 'occurred_at', order: 'desc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(filter.limit)
      .offset(filter.offset),
    base.clone().count<{ count: string }[]>('* as count').first(),
  ]);
  return { events: rows.map(eventView), total: Number(count?.count ?? 0), limit: filter.limit, offset: filter.offset };
}

export async function findEvent(knex: Knex, tenantId: string, id: string): Promise<EventView | null> {
  const row = await knex(EVENTS_TABLE).where({ tenant_id: tenantId, id }).first();
  return row ? eventView(row) : null;
}

export async function eventHistory(knex: Knex, tenantId: string, id: string) {
  const rows = await knex(EVENT_HISTORY_TABLE).where({ tenant_id: tenantId, event_id: id }).orderBy('version');
  return rows.map((r) => ({
    version: r.version,
    action: r.action,
    changes: r.changes,
    snapshot: r.snapshot,
    changed_by: r.changed_by,
    changed_at: iso(r.changed_at),
  }));
}

/** Events of these entities whose `occurred_at` lies in [from, to], excluding one event. */
export async function eventsOfEntities(
  knex: Knex,
  tenantId: string,
  entityIds: string[],
  window: { from: string; to: string },
  options: { excludeId: string; eventTypeIds?: string[]; limit: number },
) {
  if (entityIds.length === 0) return [];
  const q = knex(EVENTS_TABLE)
    .where({ tenant_id: tenantId })
    .whereIn('entity_id', entityIds)
    .andWhere('occurred_at', '>=', window.from)
    .andWhere('occurred_at', '<=', window.to)
    .andWhereNot({ id: options.excludeId })
    .orderBy([
      { column: 'occurred_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(options.limit);
  if (options.eventTypeIds?.length) q.whereIn('event_type_id', options.eventTypeIds);
  return (await q).map(eventView);
}
