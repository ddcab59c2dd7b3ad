import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import {
  type DuplicationRule,
  type DuplicationRuleEvent,
  duplicationRulesAggregate,
  type DuplicationRulesState,
  MAX_DUPLICATION_RULES,
} from '../../streams/monitoring/duplication-rules';
import { FIELD_NAME } from './field-input';

/** POST /duplication-rules, PATCH /duplication-rules/{id}, POST /duplication-rules/reset (internal listener). */

const MAX_WINDOW_SECONDS = 366 * 24 * 3600;

export const DuplicationRuleBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    event_type_id: z.string().min(1).max(128).nullable().optional(),
    match_fields: z
      .array(FIELD_NAME)
      .min(1)
      .max(20)
      .refine((f) => new Set(f).size === f.length, 'match_fields must be distinct')
      .default(['entity_id']),
    window_seconds: z.number().int().min(1).max(MAX_WINDOW_SECONDS),
    enabled: z.boolean().default(true),
  })
  .strict();
export const DuplicationRulePatch = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    event_type_id: z.string().min(1).max(128).nullable().optional(),
    match_fields: z
      .array(FIELD_NAME)
      .min(1)
      .max(20)
      .refine((f) => new Set(f).size === f.length, 'match_fields must be distinct')
      .optional(),
    window_seconds: z.number().int().min(1).max(MAX_WINDOW_SECONDS).optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export const ResetBody = z.object({ rule_id: z.string().min(1).max(128).optional() }).strict();
export type DuplicationRuleBody = z.infer<typeof DuplicationRuleBody>;
export type DuplicationRulePatch = z.infer<typeof DuplicationRulePatch>;

export type ChangeDuplicationRules =
  | { type: 'CreateDuplicationRule'; ruleId: string; body: DuplicationRuleBody; actorId: string }
  | { type: 'UpdateDuplicationRule'; ruleId: string; patch: DuplicationRulePatch; actorId: string }
  | { type: 'ResetDuplicationRules'; ruleId: string | null; actorId: string };

export function decideChangeDuplicationRules(
  command: ChangeDuplicationRules,
  state: DuplicationRulesState,
  now: Date,
): DuplicationRuleEvent[] {
  const at = now.toISOString();
  switch (command.type) {
    case 'CreateDuplicationRule': {
      if (state.rules.some((r) => r.id === command.ruleId)) return [];
      if (state.rules.length >= MAX_DUPLICATION_RULES)
        throw new Conflict(`A tenant has at most ${MAX_DUPLICATION_RULES} duplication rules`);
      const b = command.body;
      const rule: DuplicationRule = {
        id: command.ruleId,
        name: b.name,
        eventTypeId: b.event_type_id ?? null,
        matchFields: b.match_fields,
        windowSeconds: b.window_seconds,
        enabled: b.enabled,
        generation: 0,
        resetAt: null,
        updatedAt: at,
        updatedBy: command.actorId,
      };
      return [{ type: 'DuplicationRuleCreated', data: { rule } }];
    }
    case 'UpdateDuplicationRule': {
      const existing = state.rules.find((r) => r.id === command.ruleId);
      if (!existing) throw new NotFound('Duplication rule not found');
      const p = command.patch;
      const next = {
        ...existing,
        name: p.name ?? existing.name,
        eventTypeId: p.event_type_id === undefined ? existing.eventTypeId : p.event_type_id,
        matchFields: p.match_fields ?? existing.matchFields,
        windowSeconds: p.window_seconds ?? existing.windowSeconds,
        enabled: p.enabled ?? existing.enabled,
      };
      if (JSON.stringify(next) === JSON.stringify(existing)) return [];
      // A new key shape or scope makes the remembered keys meaningless: start a new generation.
      const reshaped =
        JSON.stringify(next.matchFields) !== JSON.stringify(existing.matchFields) ||
        next.eventTypeId !== existing.eventTypeId;
      return [
        {
          type: 'DuplicationRuleUpdated',
          data: {
            rule: {
              ...next,
              generation: existing.generation + (reshaped ? 1 : 0),
              updatedAt: at,
              updatedBy: command.actorId,
            },
          },
        },
      ];
    }
    case 'ResetDuplicationRules': {
      if (command.ruleId !== null && !state.rules.some((r) => r.id === command.ruleId))
        throw new NotFound('Duplication rule not found');
      const ruleIds = command.ruleId === null ? state.rules.map((r) => r.id) : [command.ruleId];
      return ruleIds.length === 0
        ? []
        : [{ type: 'DuplicationRulesReset', data: { ruleIds, by: command.actorId, at } }];
    }
    default:
      return assertNever(command);
  }
}

export const duplicationRulesDecider: Decider<ChangeDuplicationRules, DuplicationRulesState, DuplicationRuleEvent> = {
  ...duplicationRulesAggregate,
  decide: decideChangeDuplicationRules,
};

export async function changeDuplicationRules(
  deps: PlatformDeps,
  context: CommandContext,
  command: ChangeDuplicationRules,
) {
  return deps.handle(
    duplicationRulesDecider,
    duplicationRulesAggregate.stream(context.tenantId, 'all'),
    command,
    context,
  );
}
