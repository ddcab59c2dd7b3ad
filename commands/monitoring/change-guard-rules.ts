import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import {
  eventTypeAggregate,
  type EventTypeEvent,
  type EventTypeState,
  GUARD_OPERATORS,
  type GuardDefinition,
  LIMITS,
  type LiveEventType,
} from '../../streams/monitoring/event-type';
import { editableType } from './change-event-type';
import { ConditionBody } from './change-conditional-rules';
import { conditionIssues } from './event-validation';

/**
 * Guard rules validate an event before it is accepted. A rule is edited as a draft and
 * takes effect only when published: publishing freezes the draft as version N+1, which
 * is what POST /events (and PATCH /events/{id}) check. A failure answers 422 naming the
 * rule, its version and the field.
 */

const RuleValue = z
  .union([z.string().max(200), z.number(), z.boolean(), z.array(z.union([z.string().max(200), z.number()])).max(200)])
  .nullable();

export const GuardRuleBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    field: z.string().min(1).max(64),
    operator: z.enum(GUARD_OPERATORS),
    value: RuleValue.optional(),
    message: z.string().trim().max(500).nullable().optional(),
    when: ConditionBody.nullable().optional(),
    enabled: z.boolean().default(true),
  })
  .strict();
export const GuardRulePatch = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    field: z.string().min(1).max(64).optional(),
    operator: z.enum(GUARD_OPERATORS).optional(),
    value: RuleValue.optional(),
    message: z.string().trim().max(500).nullable().optional(),
    when: ConditionBody.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type GuardRuleBody = z.infer<typeof GuardRuleBody>;
export type GuardRulePatch = z.infer<typeof GuardRulePatch>;

export type ChangeGuardRules =
  | { type: 'AddGuardRule'; ruleId: string; body: GuardRuleBody; actorId: string }
  | { type: 'UpdateGuardRule'; ruleId: string; patch: GuardRulePatch; actorId: string }
  | { type: 'PublishGuardRule'; ruleId: string; actorId: string };

function checked(type: LiveEventType, def: GuardDefinition): GuardDefinition {
  const issues = conditionIssues(type, def, ['body']);
  if (def.when) issues.push(...conditionIssues(type, def.when, ['body', 'when']));
  if (issues.length > 0) throw new ValidationFailed(issues);
  return def;
}

export function decideChangeGuardRules(command: ChangeGuardRules, state: EventTypeState, now: Date): EventTypeEvent[] {
  const type = editableType(state);
  const base = { eventTypeId: type.id, ruleId: command.ruleId, by: command.actorId, at: now.toISOString() };
  const existing = type.guardRules.find((r) => r.id === command.ruleId);
  switch (command.type) {
    case 'AddGuardRule': {
      if (existing) return [];
      if (type.guardRules.length >= LIMITS.guardRules)
        throw new Conflict(`An event type has at most ${LIMITS.guardRules} guard rules`);
      const b = command.body;
      const draft = checked(type, {
        field: b.field,
        operator: b.operator,
        value: b.value ?? null,
        message: b.message ?? null,
        when: b.when ? { ...b.when, value: b.when.value ?? null } : null,
        enabled: b.enabled,
      });
      return [{ type: 'GuardRuleAdded', data: { ...base, name: b.name, draft } }];
    }
    case 'UpdateGuardRule': {
      if (!existing) throw new NotFound('Guard rule not found');
      const p = command.patch;
      const d = existing.draft;
      const draft = checked(type, {
        field: p.field ?? d.field,
        operator: p.operator ?? d.operator,
        value: p.value === undefined ? d.value : p.value,
        message: p.message === undefined ? d.message : p.message,
        when: p.when === undefined ? d.when : p.when === null ? null : { ...p.when, value: p.when.value ?? null },
        enabled: p.enabled ?? d.enabled,
      });
      const name = p.name ?? existing.name;
      if (name === existing.name && JSON.stringify(draft) === JSON.stringify(d)) return [];
      return [{ type: 'GuardRuleUpdated', data: { ...base, name, draft } }];
    }
    case 'PublishGuardRule': {
      if (!existing) throw new NotFound('Guard rule not found');
      // The fields may have changed since the draft was written.
      const definition = checked(type, existing.draft);
      if (existing.published && JSON.stringify(existing.published) === JSON.stringify(definition)) return [];
      return [
        {
          type: 'GuardRulePublished',
          data: { ...base, name: existing.name, version: existing.publishedVersion + 1, definition },
        },
      ];
    }
    default:
      return assertNever(command);
  }
}

export const guardRulesDecider: Decider<ChangeGuardRules, EventTypeState, EventTypeEvent> = {
  ...eventTypeAggregate,
  decide: decideChangeGuardRules,
};

export async function changeGuardRules(
  deps: PlatformDeps,
  context: CommandContext,
  eventTypeId: string,
  command: ChangeGuardRules,
) {
  return deps.handle(guardRulesDecider, eventTypeAggregate.stream(context.tenantId, eventTypeId), command, context);
}
