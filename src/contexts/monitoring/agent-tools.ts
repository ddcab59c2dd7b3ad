import { z } from 'zod';
import { logEvent, OCCURRED_AT } from '../../../commands/monitoring/log-event';
import { listEventTypes } from '../../../queries/monitoring/event-types';
import { listEvents } from '../../../queries/monitoring/events';
import type { AgentTool, ToolCaller, ToolProvider } from '../../platform/agent-tools';
import { derivedUuid } from '../../platform/command-handling/idempotency';
import type { PlatformDeps } from '../../platform/context-module';
import { ValidationFailed } from '../../platform/domain-errors';

/**
 * Operational events as agent tools: log one against an active event type (validated by the
 * type's fields, conditional and guard rules, and duplication rules, exactly as POST /events),
 * and list the recent ones. A `field_event` agent records what field staff report this way.
 */
const fieldValue = (value: unknown) =>
  value === null || value === undefined ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value);

export function monitoringAgentTools(deps: PlatformDeps): ToolProvider {
  const { knex } = deps;
  const activeTypes = (tenantId: string) => listEventTypes(knex, tenantId, { status: 'active' });

  const LogArgs = z
    .object({
      event_type: z
        .string()
        .min(1)
        .max(128)
        .describe('the event type\'s id or name, e.g. "Flare upset", "H2S release", "Spill", "Equipment failure"'),
      entity_id: z.string().trim().min(1).max(200).describe('the affected well (API number) or facility id'),
      entity_type: z.string().trim().min(1).max(64).default('Well'),
      occurred_at: OCCURRED_AT.optional().describe('ISO 8601 date-time with a time zone; default now'),
      fields: z.record(z.unknown()).default({}).describe("the event type's field values by field name"),
    })
    .strict();

  const logTool: AgentTool = {
    name: 'log_operational_event',
    description:
      'Records an operational event (flare upset, H2S release, spill, equipment failure…) against an active event type, validated by its fields and guard rules.',
    parameters: LogArgs,
    async run(args, caller: ToolCaller) {
      const a = args as z.infer<typeof LogArgs>;
      const types = await activeTypes(caller.tenantId);
      const type =
        types.find((t) => t.id === a.event_type) ??
        types.find((t) => t.name.toLowerCase() === a.event_type.toLowerCase());
      if (!type)
        throw new ValidationFailed([
          {
            loc: ['args', 'event_type'],
            msg: `no active event type "${a.event_type}"; active: ${types.map((t) => t.name).join(', ') || 'none'}`,
            type: 'unknown_event_type',
          },
        ]);
      const occurredAt = a.occurred_at ?? deps.clock().toISOString();
      // One id per (turn call, content): a retried tool call logs nothing twice.
      const eventId = derivedUuid(
        'monitoring.event',
        caller.tenantId,
        caller.userId,
        type.id,
        a.entity_id,
        occurredAt,
        JSON.stringify(a.fields),
      );
      const outcome = await logEvent(
        deps,
        { tenantId: caller.tenantId, actorId: caller.userId },
        {
          type: 'LogEvent',
          eventId,
          eventTypeId: type.id,
          entityId: a.entity_id,
          entityType: a.entity_type,
          occurredAt,
          fields: a.fields,
          actorId: caller.userId,
        },
      );
      if (outcome.status === 'suppressed') {
        return {
          content: `Not logged: it duplicates event ${outcome.duplicateOf} of ${outcome.duplicateOccurredAt} (duplication rule "${outcome.rule.name}", ${outcome.rule.windowSeconds} s window).`,
          result: { kind: 'operational_event', suppressed: true, duplicate_of: outcome.duplicateOf },
        };
      }
      const e = outcome.state;
      const labelOf = new Map(type.fields.map((f) => [f.name, f.label ?? f.name]));
      const values = Object.entries(e.fields)
        .filter(([k]) => k !== 'description')
        .map(([k, v]) => `${labelOf.get(k) ?? k}: ${fieldValue(v)}`)
        .join(', ');
      return {
        content: `Logged ${type.name} ${e.eventId} for ${a.entity_type} ${e.entityId} at ${e.occurredAt}${values ? `: ${values}` : ''}.${e.anomalyFlagged ? ' It is flagged as a compliance anomaly on the dashboard.' : ''}`,
        result: {
          kind: 'operational_event',
          suppressed: false,
          event_id: e.eventId,
          event_type: type.name,
          entity_id: e.entityId,
          occurred_at: e.occurredAt,
          fields: e.fields,
          anomaly_flagged: e.anomalyFlagged,
          entities: [{ entity_id: e.entityId, name: e.entityId, entity_type: a.entity_type }],
        },
      };
    },
  };

  const ListArgs = z
    .object({ entity_id: z.string().max(200).optional(), limit: z.number().int().min(1).max(50).default(10) })
    .strict();
  const listTool: AgentTool = {
    name: 'recent_operational_events',
    description:
      'The most recent operational events (flare upsets, H2S releases, spills, equipment failures…), of one well or facility or of the whole portfolio, and the event types that can be logged.',
    parameters: ListArgs,
    async run(args, caller) {
      const a = args as z.infer<typeof ListArgs>;
      const [types, page] = await Promise.all([
        activeTypes(caller.tenantId),
        listEvents(knex, caller.tenantId, { entity_id: a.entity_id, limit: a.limit, offset: 0 }),
      ]);
      const nameOf = new Map(types.map((t) => [t.id, t.name]));
      const scope = a.entity_id ? ` of ${a.entity_id}` : '';
      const lines = [
        page.total === 0
          ? `No operational events${scope} are recorded.`
          : `${page.total} operational event${page.total === 1 ? '' : 's'}${scope} recorded; the latest ${page.events.length}:`,
        ...page.events.map(
          (e) =>
            `- ${e.occurred_at.slice(0, 16).replace('T', ' ')} UTC: ${nameOf.get(e.event_type_id) ?? e.event_type_id} at ${e.entity_type} ${e.entity_id}${e.anomaly_flagged ? ' (flagged anomaly)' : ''}.`,
        ),
        `Event types that can be logged: ${types.map((t) => t.name).join(', ') || 'none'}.`,
      ];
      return {
        content: lines.join('\n'),
        result: {
          kind: 'table',
          title: `Operational events${scope}`,
          columns: ['occurred_at', 'event_type', 'entity_id', 'anomaly_flagged'],
          rows: page.events.map((e) => ({
            id: e.id,
            occurred_at: e.occurred_at,
            event_type: nameOf.get(e.event_type_id) ?? e.event_type_id,
            entity_id: e.entity_id,
            entity_type: e.entity_type,
            anomaly_flagged: e.anomaly_flagged,
            fields: e.fields,
          })),
          total_rows: page.total,
          event_types: types.map((t) => ({
            id: t.id,
            name: t.name,
            fields: t.fields.map((f) => ({ name: f.name, type: f.type, required: f.required })),
          })),
        },
      };
    },
  };

  const tools = [logTool, listTool];
  return { tools: async () => tools };
}
