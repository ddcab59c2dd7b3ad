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
import { logEvent, LogEventBody } from '../../../commands/monitoring/log-event';
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
import { identityOf, requireIdentity } from '../../platform/http/identity';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
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

function configurer(req: Request, deps: PlatformDeps): CommandContext {
  requirePermission(req, CONFIGURE, deps);
  return commandContext(req);
}

async function typeOr404(deps: PlatformDeps, tenantId: string, id: string): Promise<LiveEventType> {
  const type = await findEventType(deps.knex, tenantId, id);
  if (!type) throw new NotFound('Event type not found');
  return type;
}

/** The state a command left, as the route answers it. */
function live(state: unknown): LiveEventType {
  const s = state as Parameters<typeof isLive>[0];
  if (!isLive(s)) throw new NotFound('Event type not found');
  return s;
}

export function eventTypeRoutes(deps: PlatformDeps): Router {
  const router = Router();
  const { knex } = deps;

  router.post('/event-types', async (req, res) => {
    const context = configurer(req, deps);
    const body = parseBody(req, CreateEventTypeBody);
    const eventTypeId = newId(context, 'monitoring.event-type');
    const fieldIds = body.fields.map((_, i) => newId(context, `monitoring.event-type.field.${i}`));
    const { state } = await createEventType(deps, context, {
      type: 'CreateEventType',
      eventTypeId,
      body,
      fieldIds,
      actorId: context.actorId,
    });
    res.status(201).json(eventTypeView(live(state)));
  });

  router.get('/event-types', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    res.json((await listEventTypes(knex, tenantId, parseQuery(req, TypeListQuery))).map(eventTypeView));
  });

  router.get('/event-types/:id', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, TypeParams);
    res.json(eventTypeView(await typeOr404(deps, tenantId, id)));
  });

  router.patch('/event-types/:id', async (req, res) => {
    const context = configurer(req, deps);
    const { id } = parseParams(req, TypeParams);
    const body = parseBody(req, UpdateEventTypeBody);
    const { state } = await changeEventType(deps, context, id, {
      type: 'UpdateEventType',
      body,
      actorId: context.actorId,
    });
    res.json(eventTypeView(live(state)));
  });

  router.delete('/event-types/:id', async (req, res) => {
    const context = configurer(req, deps);
    const { id } = parseParams(req, TypeParams);
    await changeEventType(deps, context, id, { type: 'DeleteEventType', actorId: context.actorId });
    res.status(204).end();
  });

  router.post('/event-types/:id/transition', async (req, res) => {
    const context = configurer(req, deps);
    const { id } = parseParams(req, TypeParams);
    const { status } = parseBody(req, TransitionBody);
    const { state } = await changeEventType(deps, context, id, {
      type: 'TransitionEventType',
      to: status,
      actorId: context.actorId,
    });
    res.json(eventTypeView(live(state)));
  });

  // ---- fields
  router.post('/event-types/:id/fields', async (req, res) => {
    const context = configurer(req, deps);
    const { id } = parseParams(req, TypeParams);
    const field = parseBody(req, FieldInput);
    const fieldId = newId(context, 'monitoring.event-type.field');
    const { state } = await changeFields(deps, context, id, {
      type: 'AddField',
      fieldId,
      field,
      actorId: context.actorId,
    });
    res.status(201).json(fieldView(live(state).fields.find((f) => f.id === fieldId)!));
  });

  router.get('/event-types/:id/fields', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, TypeParams);
    res.json((await typeOr404(deps, tenantId, id)).fields.map(fieldView));
  });

  router.put('/event-types/:id/fields/reorder', async (req, res) => {
    const context = configurer(req, deps);
    const { id } = parseParams(req, TypeParams);
    const { field_ids } = parseBody(req, ReorderBody);
    const { state } = await changeFields(deps, context, id, {
      type: 'ReorderFields',
      fieldIds: field_ids,
      actorId: context.actorId,
    });
    res.json(live(state).fields.map(fieldView));
  });

  router.patch('/event-types/:id/fields/:fid', async (req, res) => {
    const context = configurer(req, deps);
    const { id, fid } = parseParams(req, FieldParams);
    const patch = parseBody(req, FieldPatch);
    const { state } = await changeFields(deps, context, id, {
      type: 'UpdateField',
      fieldId: fid,
      patch,
      actorId: context.actorId,
    });
    res.json(fieldView(live(state).fields.find((f) => f.id === fid)!));
  });

  router.delete('/event-types/:id/fields/:fid', async (req, res) => {
    const context = configurer(req, deps);
    const { id, fid } = parseParams(req, FieldParams);
    await changeFields(deps, context, id, { type: 'RemoveField', fieldId: fid, actorId: context.actorId });
    res.status(204).end();
  });

  // ---- conditional rules
  router.post('/event-types/:id/conditional-rules', async (req, res) => {
    const context = configurer(req, deps);
    const { id } = parseParams(req, TypeParams);
    const body = parseBody(req, ConditionalRuleBody);
    const ruleId = newId(context, 'monitoring.conditional-rule');
    const { state } = await changeConditionalRules(deps, context, id, {
      type: 'AddConditionalRule',
      ruleId,
      body,
      actorId: context.actorId,
    });
    res.status(201).json(conditionalRuleView(live(state).conditionalRules.find((r) => r.id === ruleId)!));
  });

  router.get('/event-types/:id/conditional-rules', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, TypeParams);
    res.json((await typeOr404(deps, tenantId, id)).conditionalRules.map(conditionalRuleView));
  });

  router.patch('/event-types/:id/conditional-rules/:rid', async (req, res) => {
    const context = configurer(req, deps);
    const { id, rid } = parseParams(req, RuleParams);
    const patch = parseBody(req, ConditionalRulePatch);
    const { state } = await changeConditionalRules(deps, context, id, {
      type: 'UpdateConditionalRule',
      ruleId: rid,
      patch,
      actorId: context.actorId,
    });
    res.json(conditionalRuleView(live(state).conditionalRules.find((r) => r.id === rid)!));
  });

  router.delete('/event-types/:id/conditional-rules/:rid', async (req, res) => {
    const context = configurer(req, deps);
    const { id, rid } = parseParams(req, RuleParams);
    await changeConditionalRules(deps, context, id, {
      type: 'DeleteConditionalRule',
      ruleId: rid,
      actorId: context.actorId,
    });
    res.status(204).end();
  });

  // ---- guard rules
  router.post('/event-types/:id/guard-rules', async (req, res) => {
    const context = configurer(req, deps);
    const { id } = parseParams(req, TypeParams);
    const body = parseBody(req, GuardRuleBody);
    const ruleId = newId(context, 'monitoring.guard-rule');
    const { state } = await changeGuardRules(deps, context, id, {
      type: 'AddGuardRule',
      ruleId,
      body,
      actorId: context.actorId,
    });
    res.status(201).json(guardRuleView(live(state).guardRules.find((r) => r.id === ruleId)!));
  });

  router.get('/event-types/:id/guard-rules', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, TypeParams);
    res.json((await typeOr404(deps, tenantId, id)).guardRules.map(guardRuleView));
  });

  router.patch('/event-types/:id/guard-rules/:rid', async (req, res) => {
    const context = configurer(req, deps);
    const { id, rid } = parseParams(req, RuleParams);
    const patch = parseBody(req, GuardRulePatch);
    const { state } = await changeGuardRules(deps, context, id, {
      type: 'UpdateGuardRule',
      ruleId: rid,
      patch,
      actorId: context.actorId,
    });
    res.json(guardRuleView(live(state).guardRules.find((r) => r.id === rid)!));
  });

  router.post('/event-types/:id/guard-rules/:rid/publish', async (req, res) => {
    const context = configurer(req, deps);
    const { id, rid } = parseParams(req, RuleParams);
    const { state } = await changeGuardRules(deps, context, id, {
      type: 'PublishGuardRule',
      ruleId: rid,
      actorId: context.actorId,
    });
    res.json(guardRuleView(live(state).guardRules.find((r) => r.id === rid)!));
  });

  router.get('/event-types/:id/guard-rules/:rid/versions', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id, rid } = parseParams(req, RuleParams);
    const type = await typeOr404(deps, tenantId, id);
    if (!type.guardRules.some((r) => r.id === rid)) throw new NotFound('Guard rule not found');
    res.json(await guardRuleVersions(knex, tenantId, id, rid));
  });

  return router;
}

export function eventRoutes(deps: PlatformDeps): Router {
  const router = Router();
  const { knex } = deps;

  router.post('/events', async (req, res) => {
    const context = commandContext(req);
    const body = parseBody(req, LogEventBody);
    const eventId = newId(context, 'monitoring.event');
    const outcome = await logEvent(deps, context, {
      type: 'LogEvent',
      eventId,
      eventTypeId: body.event_type_id,
      entityId: body.entity_id,
      entityType: body.entity_type,
      occurredAt: body.occurred_at,
      fields: body.fields,
      actorId: context.actorId,
    });
    if (outcome.status === 'suppressed') {
      const { rule } = outcome;
      res.json({
        suppressed: true,
        detail: `Duplicate of event ${outcome.duplicateOf} within ${rule.windowSeconds} s (duplication rule "${rule.name}"); not logged`,
        duplicate_of: outcome.duplicateOf,
        duplicate_occurred_at: outcome.duplicateOccurredAt,
        rule: { id: rule.id, name: rule.name, match_fields: rule.matchFields, window_seconds: rule.windowSeconds },
      });
      return;
    }
    res
      .status(outcome.replayed ? 200 : 201)
      .json({ ...eventViewOf(outcome.state), hidden_fields: outcome.hidden, suppressed: false });
  });

  router.get('/events', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    res.json(await listEvents(knex, tenantId, parseQuery(req, EventListQuery)));
  });

  router.get('/events/:id', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, TypeParams);
    const { history } = parseQuery(req, EventQuery);
    const view = await findEvent(knex, tenantId, id);
    if (!view) throw new NotFound('Event not found');
    res.json(history === 'true' ? { ...view, history: await eventHistory(knex, tenantId, id) } : view);
  });

  router.patch('/events/:id', async (req, res) => {
    const context = commandContext(req);
    const { id } = parseParams(req, TypeParams);
    const body = parseBody(req, UpdateEventBody);
    const { state } = await updateEvent(deps, context, id, body);
    if (state.status !== 'logged') throw new NotFound('Event not found');
    res.json(eventViewOf(state));
  });

  router.post('/events/:id/correlate', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, TypeParams);
    const body = parseBody(req, CorrelateBody);
    const event = await findEvent(knex, tenantId, id);
    if (!event) throw new NotFound('Event not found');
    res.json(
      await correlate(knex, tenantId, event, {
        windowHours: body.window_hours,
        includeNeighbors: body.include_neighbors,
        eventTypeIds: body.event_type_ids,
        limit: body.limit,
      }),
    );
  });

  return router;
}

/**
 * Callers of the internal listener: a stamped identity when one is present (then writes
 * need `events.configure`), otherwise a trusted local service naming the tenant with
 * `X-Tenant-Id` or `?tenant_id=` (default tenant when neither) and acting as the system user.
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

  router.get('/duplication-rules', async (req, res) => {
    const { tenantId } = internalCaller(req, false);
    res.json(await listDuplicationRules(knex, tenantId));
  });

  router.post('/duplication-rules', async (req, res) => {
    const context = internalCaller(req, true);
    const body = parseBody(req, DuplicationRuleBody);
    const ruleId = newId(context, 'monitoring.duplication-rule');
    const { state } = await changeDuplicationRules(deps, context, {
      type: 'CreateDuplicationRule',
      ruleId,
      body,
      actorId: context.actorId,
    });
    res.status(201).json(duplicationRuleViewOf(ruleOf(state, ruleId)));
  });

  router.post('/duplication-rules/reset', async (req, res) => {
    const context = internalCaller(req, true);
    const { rule_id } = parseBody(req, ResetBody);
    const { state } = await changeDuplicationRules(deps, context, {
      type: 'ResetDuplicationRules',
      ruleId: rule_id ?? null,
      actorId: context.actorId,
    });
    res.json(
      [...state.rules]
        .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
        .map(duplicationRuleViewOf),
    );
  });

  router.patch('/duplication-rules/:id', async (req, res) => {
    const context = internalCaller(req, true);
    const { id } = parseParams(req, RuleIdParams);
    const patch = parseBody(req, DuplicationRulePatch);
    const { state } = await changeDuplicationRules(deps, context, {
      type: 'UpdateDuplicationRule',
      ruleId: id,
      patch,
      actorId: context.actorId,
    });
    res.json(duplicationRuleViewOf(ruleOf(state, id)));
  });

  return router;
}
