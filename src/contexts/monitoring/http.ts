import { type Request, Router } from 'express';
import {
  changeConditionalRules,
  ConditionalRuleBody,
  ConditionalRulePatch,
} from '../../../commands/monitoring/change-conditional-rules';
import {
  changeDuplicationRules,
  DuplicationRuleBody,
  DuplicationRulePatch,
  ResetBody,
} from '../../../commands/monitoring/change-duplication-rules';
import { changeEventType, TransitionBody, UpdateEventTypeBody } from '../../../commands/monitoring/change-event-type';
import { changeFields, ReorderBody } from '../../../commands/monitoring/change-fields';
import { changeGuardRules, GuardRuleBody, GuardRulePatch } from '../../../commands/monitoring/change-guard-rules';
import { createEventType, CreateEventTypeBody } from '../../../commands/monitoring/create-event-type';
import { FieldInput, FieldPatch } from '../../../commands/monitoring/field-input';
import { logEvent, LogEventBody, type LogEventOutcome } from '../../../commands/monitoring/log-event';
import { updateEvent, UpdateEventBody } from '../../../commands/monitoring/update-event';
import { correlate } from '../../../queries/monitoring/correlate';
import { duplicationRuleViewOf, listDuplicationRules } from '../../../queries/monitoring/duplication-rules';
import {
  conditionalRuleView,
  eventTypeView,
  fieldView,
  findEventType,
  guardRuleVersions,
  guardRuleView,
  listEventTypes,
} from '../../../queries/monitoring/event-types';
import { eventHistory, eventViewOf, findEvent, listEvents } from '../../../queries/monitoring/events';
import { SYSTEM_USER_ID } from '../../../streams/identity/system-accounts';
import { DEFAULT_TENANT_ID } from '../../../streams/identity/tenant';
import { type DuplicationRule, type DuplicationRulesState } from '../../../streams/monitoring/duplication-rules';
import { isLive, type LiveEventType } from '../../../streams/monitoring/event-type';
import type { CommandContext } from '../../platform/command-handling/command-handler';
import { newId } from '../../platform/command-handling/idempotency';
import type { PlatformDeps } from '../../platform/context-module';
import { Forbidden, NotFound } from '../../platform/domain-errors';
import { commandContext, idempotencyKeyOf } from '../../platform/http/command-context';
import { identityOf } from '../../platform/http/identity';
import { declareRoutes } from '../../platform/http/route';
import { parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity';
import {
  CorrelateBody,
  EventListQuery,
  EventQuery,
  FieldParams,
  RuleIdParams,
  RuleParams,
  TenantQuery,
  TypeListQuery,
  TypeParams,
} from './schemas';

/**
 * Operational events: event types with fields,
 * conditional and guard rules, lifecycle; logged events with history and correlation.
 * Writes to types and rules need `events.configure` (power_user, admin; the gateway's role
 * gate stands in front of /event-types writes). Duplication rules are on the internal
 * listener only.
 */

const CONFIGURE = 'events.configure';

/** The state a command left, as the route answers it. */
function live(state: unknown): LiveEventType {
  const s = state as Parameters<typeof isLive>[0];
  if (!isLive(s)) throw new NotFound('Event type not found');
  return s;
}

export function eventTypeRoutes(deps: PlatformDeps): Router {
  const router = Router();
  const route = declareRoutes(router, deps, requirePermission);
  const { knex } = deps;
  const typeRead = {
    params: TypeParams,
    read: ({ identity, params }: { identity: { tenantId: string }; params: { id: string } }) =>
      findEventType(knex, identity.tenantId, params.id),
    notFound: 'Event type not found',
  };

  route.post('/event-types', {
    permission: CONFIGURE,
    body: CreateEventTypeBody,
    status: 201,
    command: ({ body, context }) =>
      createEventType(deps, context, {
        type: 'CreateEventType',
        eventTypeId: newId(context, 'monitoring.event-type'),
        body,
        fieldIds: body.fields.map((_, i) => newId(context, `monitoring.event-type.field.${i}`)),
        actorId: context.actorId,
      }),
    respond: ({ state }) => eventTypeView(live(state)),
  });

  route.get('/event-types', {
    query: TypeListQuery,
    read: ({ identity, query }) => listEventTypes(knex, identity.tenantId, query),
    respond: (types) => types.map(eventTypeView),
  });

  route.get('/event-types/:id', { ...typeRead, respond: eventTypeView });

  route.patch('/event-types/:id', {
    permission: CONFIGURE,
    params: TypeParams,
    body: UpdateEventTypeBody,
    command: ({ params, body, context }) =>
      changeEventType(deps, context, params.id, { type: 'UpdateEventType', body, actorId: context.actorId }),
    respond: ({ state }) => eventTypeView(live(state)),
  });

  route.delete('/event-types/:id', {
    permission: CONFIGURE,
    params: TypeParams,
    status: 204,
    command: ({ params, context }) =>
      changeEventType(deps, context, params.id, { type: 'DeleteEventType', actorId: context.actorId }),
  });

  route.post('/event-types/:id/transition', {
    permission: CONFIGURE,
    params: TypeParams,
    body: TransitionBody,
    command: ({ params, body, context }) =>
      changeEventType(deps, context, params.id, {
        type: 'TransitionEventType',
        to: body.status,
        actorId: context.actorId,
      }),
    respond: ({ state }) => eventTypeView(live(state)),
  });

  // ---- fields
  route.post('/event-types/:id/fields', {
    permission: CONFIGURE,
    params: TypeParams,
    body: FieldInput,
    status: 201,
    command: async ({ params, body, context }) => {
      const fieldId = newId(context, 'monitoring.event-type.field');
      const { state } = await changeFields(deps, context, params.id, {
        type: 'AddField',
        fieldId,
        field: body,
        actorId: context.actorId,
      });
      return { state, fieldId };
    },
    respond: ({ state, fieldId }) => fieldView(live(state).fields.find((f) => f.id === fieldId)!),
  });

  route.get('/event-types/:id/fields', { ...typeRead, respond: (type) => type.fields.map(fieldView) });

  route.put('/event-types/:id/fields/reorder', {
    permission: CONFIGURE,
    params: TypeParams,
    body: ReorderBody,
    command: ({ params, body, context }) =>
      changeFields(deps, context, params.id, {
        type: 'ReorderFields',
        fieldIds: body.field_ids,
        actorId: context.actorId,
      }),
    respond: ({ state }) => live(state).fields.map(fieldView),
  });

  route.patch('/event-types/:id/fields/:fid', {
    permission: CONFIGURE,
    params: FieldParams,
    body: FieldPatch,
    command: ({ params, body, context }) =>
      changeFields(deps, context, params.id, {
        type: 'UpdateField',
        fieldId: params.fid,
        patch: body,
        actorId: context.actorId,
      }),
    respond: ({ state }, { params }) => fieldView(live(state).fields.find((f) => f.id === params.fid)!),
  });

  route.delete('/event-types/:id/fields/:fid', {
    permission: CONFIGURE,
    params: FieldParams,
    status: 204,
    command: ({ params, context }) =>
      changeFields(deps, context, params.id, { type: 'RemoveField', fieldId: params.fid, actorId: context.actorId }),
  });

  // ---- conditional rules
  route.post('/event-types/:id/conditional-rules', {
    permission: CONFIGURE,
    params: TypeParams,
    body: ConditionalRuleBody,
    status: 201,
    command: async ({ params, body, context }) => {
      const ruleId = newId(context, 'monitoring.conditional-rule');
      const { state } = await changeConditionalRules(deps, context, params.id, {
        type: 'AddConditionalRule',
        ruleId,
        body,
        actorId: context.actorId,
      });
      return { state, ruleId };
    },
    respond: ({ state, ruleId }) => conditionalRuleView(live(state).conditionalRules.find((r) => r.id === ruleId)!),
  });

  route.get('/event-types/:id/conditional-rules', {
    ...typeRead,
    respond: (type) => type.conditionalRules.map(conditionalRuleView),
  });

  route.patch('/event-types/:id/conditional-rules/:rid', {
    permission: CONFIGURE,
    params: RuleParams,
    body: ConditionalRulePatch,
    command: ({ params, body, context }) =>
      changeConditionalRules(deps, context, params.id, {
        type: 'UpdateConditionalRule',
        ruleId: params.rid,
        patch: body,
        actorId: context.actorId,
      }),
    respond: ({ state }, { params }) =>
      conditionalRuleView(live(state).conditionalRules.find((r) => r.id === params.rid)!),
  });

  route.delete('/event-types/:id/conditional-rules/:rid', {
    permission: CONFIGURE,
    params: RuleParams,
    status: 204,
    command: ({ params, context }) =>
      changeConditionalRules(deps, context, params.id, {
        type: 'DeleteConditionalRule',
        ruleId: params.rid,
        actorId: context.actorId,
      }),
  });

  // ---- guard rules
  route.post('/event-types/:id/guard-rules', {
    permission: CONFIGURE,
    params: TypeParams,
    body: GuardRuleBody,
    status: 201,
    command: async ({ params, body, context }) => {
      const ruleId = newId(context, 'monitoring.guard-rule');
      const { state } = await changeGuardRules(deps, context, params.id, {
        type: 'AddGuardRule',
        ruleId,
        body,
        actorId: context.actorId,
      });
      return { state, ruleId };
    },
    respond: ({ state, ruleId }) => guardRuleView(live(state).guardRules.find((r) => r.id === ruleId)!),
  });

  route.get('/event-types/:id/guard-rules', {
    ...typeRead,
    respond: (type) => type.guardRules.map(guardRuleView),
  });

  route.patch('/event-types/:id/guard-rules/:rid', {
    permission: CONFIGURE,
    params: RuleParams,
    body: GuardRulePatch,
    command: ({ params, body, context }) =>
      changeGuardRules(deps, context, params.id, {
        type: 'UpdateGuardRule',
        ruleId: params.rid,
        patch: body,
        actorId: context.actorId,
      }),
    respond: ({ state }, { params }) => guardRuleView(live(state).guardRules.find((r) => r.id === params.rid)!),
  });

  route.post('/event-types/:id/guard-rules/:rid/publish', {
    permission: CONFIGURE,
    params: RuleParams,
    command: ({ params, context }) =>
      changeGuardRules(deps, context, params.id, {
        type: 'PublishGuardRule',
        ruleId: params.rid,
        actorId: context.actorId,
      }),
    respond: ({ state }, { params }) => guardRuleView(live(state).guardRules.find((r) => r.id === params.rid)!),
  });

  route.get('/event-types/:id/guard-rules/:rid/versions', {
    params: RuleParams,
    read: async ({ identity, params }) => {
      const type = await findEventType(knex, identity.tenantId, params.id);
      if (!type) throw new NotFound('Event type not found');
      if (!type.guardRules.some((r) => r.id === params.rid)) throw new NotFound('Guard rule not found');
      return guardRuleVersions(knex, identity.tenantId, params.id, params.rid);
    },
  });

  return router;
}

/** POST /events answers a suppressed duplicate with why it was not logged. */
function logEventAnswer(outcome: LogEventOutcome) {
  if (outcome.status === 'suppressed') {
    const { rule } = outcome;
    return {
      suppressed: true,
      detail: `Duplicate of event ${outcome.duplicateOf} within ${rule.windowSeconds} s (duplication rule "${rule.name}"); not logged`,
      duplicate_of: outcome.duplicateOf,
      duplicate_occurred_at: outcome.duplicateOccurredAt,
      rule: { id: rule.id, name: rule.name, match_fields: rule.matchFields, window_seconds: rule.windowSeconds },
    };
  }
  return { ...eventViewOf(outcome.state), hidden_fields: outcome.hidden, suppressed: false };
}

export function eventRoutes(deps: PlatformDeps): Router {
  const router = Router();
  const route = declareRoutes(router, deps, requirePermission);
  const { knex } = deps;

  route.post('/events', {
    body: LogEventBody,
    // A new event answers 201; a suppressed duplicate and a replayed retry 200.
    status: (outcome) => (outcome.status === 'logged' && !outcome.replayed ? 201 : 200),
    command: ({ body, context }) =>
      logEvent(deps, context, {
        type: 'LogEvent',
        eventId: newId(context, 'monitoring.event'),
        eventTypeId: body.event_type_id,
        entityId: body.entity_id,
        entityType: body.entity_type,
        occurredAt: body.occurred_at,
        fields: body.fields,
        actorId: context.actorId,
      }),
    respond: logEventAnswer,
  });

  route.get('/events', {
    query: EventListQuery,
    read: ({ identity, query }) => listEvents(knex, identity.tenantId, query),
  });

  route.get('/events/:id', {
    params: TypeParams,
    query: EventQuery,
    read: async ({ identity, params, query }) => {
      const view = await findEvent(knex, identity.tenantId, params.id);
      if (!view || query.history !== 'true') return view;
      return { ...view, history: await eventHistory(knex, identity.tenantId, params.id) };
    },
    notFound: 'Event not found',
  });

  route.patch('/events/:id', {
    params: TypeParams,
    body: UpdateEventBody,
    command: ({ params, body, context }) => updateEvent(deps, context, params.id, body),
    respond: ({ state }) => {
      if (state.status !== 'logged') throw new NotFound('Event not found');
      return eventViewOf(state);
    },
  });

  route.search('/events/:id/correlate', {
    params: TypeParams,
    body: CorrelateBody,
    read: async ({ identity, params, body }) => {
      const event = await findEvent(knex, identity.tenantId, params.id);
      if (!event) throw new NotFound('Event not found');
      return correlate(knex, identity.tenantId, event, {
        windowHours: body.window_hours,
        includeNeighbors: body.include_neighbors,
        eventTypeIds: body.event_type_ids,
        limit: body.limit,
      });
    },
  });

  return router;
}

/**
 * Callers of the internal listener: a stamped identity when one is present (then writes
 * need `events.configure`, enforced whatever SVC_AUTH_MODE says), otherwise a trusted local
 * service naming the tenant with `X-Tenant-Id` or `?tenant_id=` (default tenant when neither)
 * and acting as the system user.
 */
function internalCaller(req: Request, write: boolean): CommandContext {
  const identity = identityOf(req);
  if (identity) {
    if (write && !identity.permissions.includes(CONFIGURE)) throw new Forbidden('Insufficient permissions');
    return commandContext(req);
  }
  const { tenant_id } = parseQuery(req, TenantQuery);
  const tenantId = req.get('x-tenant-id') ?? tenant_id ?? DEFAULT_TENANT_ID;
  return { tenantId, actorId: SYSTEM_USER_ID, correlationId: req.id, idempotencyKey: idempotencyKeyOf(req) };
}

function ruleOf(state: DuplicationRulesState, id: string): DuplicationRule {
  const rule = state.rules.find((r) => r.id === id);
  if (!rule) throw new NotFound('Duplication rule not found');
  return rule;
}

export function duplicationRuleRoutes(deps: PlatformDeps): Router {
  const router = Router();
  const { knex } = deps;
  const reader = declareRoutes(router, deps, requirePermission, { caller: (req) => internalCaller(req, false) });
  const writer = declareRoutes(router, deps, requirePermission, { caller: (req) => internalCaller(req, true) });

  reader.get('/duplication-rules', {
    read: ({ caller }) => listDuplicationRules(knex, caller.tenantId),
  });

  writer.post('/duplication-rules', {
    body: DuplicationRuleBody,
    status: 201,
    command: async ({ caller, body }) => {
      const ruleId = newId(caller, 'monitoring.duplication-rule');
      const { state } = await changeDuplicationRules(deps, caller, {
        type: 'CreateDuplicationRule',
        ruleId,
        body,
        actorId: caller.actorId,
      });
      return { state, ruleId };
    },
    respond: ({ state, ruleId }) => duplicationRuleViewOf(ruleOf(state, ruleId)),
  });

  writer.post('/duplication-rules/reset', {
    body: ResetBody,
    command: ({ caller, body }) =>
      changeDuplicationRules(deps, caller, {
        type: 'ResetDuplicationRules',
        ruleId: body.rule_id ?? null,
        actorId: caller.actorId,
      }),
    respond: ({ state }) =>
      [...state.rules]
        .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
        .map(duplicationRuleViewOf),
  });

  writer.patch('/duplication-rules/:id', {
    params: RuleIdParams,
    body: DuplicationRulePatch,
    command: ({ caller, params, body }) =>
      changeDuplicationRules(deps, caller, {
        type: 'UpdateDuplicationRule',
        ruleId: params.id,
        patch: body,
        actorId: caller.actorId,
      }),
    respond: ({ state }, { params }) => duplicationRuleViewOf(ruleOf(state, params.id)),
  });

  return router;
}
