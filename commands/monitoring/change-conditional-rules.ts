import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import {
  CONDITION_OPERATORS,
  type ConditionalRule,
  eventTypeAggregate,
  type EventTypeEvent,
  type EventTypeState,
  LIMITS,
  type LiveEventType,
} from '../../streams/monitoring/event-type';
import { editableType } from './change-event-type';
import { conditionIssues } from './event-validation';

/**
 * Conditional rules: show or hide a field from another field's value. `show`: the field is
 * visible only while the condition holds; `hide`: hidden while it holds. A hidden field is
 * not required and a value sent for it is dropped.
 */

const RuleValue = z
  .union([z.string().max(200), z.number(), z.boolean(), z.array(z.union([z.string().max(200), z.number()])).max(200)])
  .nullable();
export const ConditionBody = z
  .object({ field: z.string().min(1).max(64), operator: z.enum(CONDITION_OPERATORS), value: RuleValue.optional() })
  .strict();

export const ConditionalRuleBody = z
  .object({
    field: z.string().min(1).max(64),
    effect: z.enum(['show', 'hide']),
    when: ConditionBody,
    description: z.string().trim().max(500).nullable().optional(),
  })
  .strict();
export const ConditionalRulePatch = ConditionalRuleBody.partial().strict();
export type ConditionalRuleBody = z.infer<typeof ConditionalRuleBody>;
export type ConditionalRulePatch = z.infer<typeof ConditionalRulePatch>;

export type ChangeConditionalRules =
  | { type: 'AddConditionalRule'; ruleId: string; body: ConditionalRuleBody; actorId: string }
  | { type: 'UpdateConditionalRule'; ruleId: string; patch: ConditionalRulePatch; actorId: string }
  | { type: 'DeleteConditionalRule'; ruleId: string; actorId: string };

function checked(type: LiveEventType, rule: ConditionalRule): ConditionalRule {
  const issues = [];
  if (!type.fields.some((f) => f.name === rule.field))
    issues.push({ loc: ['body', 'field'], msg: `unknown field "${rule.field}"`, type: 'unknown_field' });
  if (rule.field === rule.when.field)
    issues.push({
      loc: ['body', 'when', 'field'],
      msg: 'a field cannot decide its own visibility',
      type: 'self_reference',
    });
  issues.push(...conditionIssues(type, rule.when, ['body', 'when']));
  if (issues.length > 0) throw new ValidationFailed(issues);
  return rule;
}

export function decideChangeConditionalRules(
  command: ChangeConditionalRules,
  state: EventTypeState,
  now: Date,
): EventTypeEvent[] {
  const type = editableType(state);
  const base = { eventTypeId: type.id, by: command.actorId, at: now.toISOString() };
  const existing = type.conditionalRules.find((r) => r.id === command.ruleId);
  switch (command.type) {
    case 'AddConditionalRule': {
      if (existing) return [];
      if (type.conditionalRules.length >= LIMITS.conditionalRules)
        throw new Conflict(`An event type has at most ${LIMITS.conditionalRules} conditional rules`);
      const b = command.body;
      const rule = checked(type, {
        id: command.ruleId,
        field: b.field,
        effect: b.effect,
        when: { ...b.when, value: b.when.value ?? null },
        description: b.description ?? null,
      });
      return [{ type: 'ConditionalRuleAdded', data: { ...base, rule } }];
    }
    case 'UpdateConditionalRule': {
      if (!existing) throw new NotFound('Conditional rule not found');
      const p = command.patch;
      const rule = checked(type, {
        id: existing.id,
        field: p.field ?? existing.field,
        effect: p.effect ?? existing.effect,
        when: p.when ? { ...p.when, value: p.when.value ?? null } : existing.when,
        description: p.description === undefined ? existing.description : p.description,
      });
      return JSON.stringify(rule) === JSON.stringify(existing)
        ? []
        : [{ type: 'ConditionalRuleUpdated', data: { ...base, rule } }];
    }
    case 'DeleteConditionalRule':
      if (!existing) throw new NotFound('Conditional rule not found');
      return [{ type: 'ConditionalRuleDeleted', data: { ...base, ruleId: existing.id } }];
    default:
      return assertNever(command);
  }
}

export const conditionalRulesDecider: Decider<ChangeConditionalRules, EventTypeState, EventTypeEvent> = {
  ...eventTypeAggregate,
  decide: decideChangeConditionalRules,
};

export async function changeConditionalRules(
  deps: PlatformDeps,
  context: CommandContext,
  eventTypeId: string,
  command: ChangeConditionalRules,
) {
  return deps.handle(
    conditionalRulesDecider,
    eventTypeAggregate.stream(context.tenantId, eventTypeId),
    command,
    context,
  );
}
