import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * Duplication rules (internal listener only): a logged event whose type, and
 * whose chosen keys (`entity_id`, `entity_type` or field names), equal those of an event
 * accepted within `windowSeconds` of its `occurred_at` is suppressed. One stream per tenant
 * holds all its rules (at most MAX_DUPLICATION_RULES). A reset starts a new generation of a
 * rule: the keys remembered so far live in streams named after the generation and stop
 * counting.
 *
 * The memory of accepted keys is the write side too: one small stream per (rule,
 * generation, key) gets `DuplicateKeyAccepted` in the same atomic write as the event, so
 * two concurrent duplicates meet on that stream's revision and only one is accepted.
 */

export const MAX_DUPLICATION_RULES = 100;

export const DuplicationRuleSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** null: every event type. */
  eventTypeId: z.string().nullable(),
  matchFields: z.array(z.string()),
  windowSeconds: z.number().int(),
  enabled: z.boolean(),
  generation: z.number().int(),
  resetAt: z.string().nullable().default(null),
  updatedAt: z.string(),
  updatedBy: z.string(),
});
export type DuplicationRule = z.infer<typeof DuplicationRuleSchema>;

export const DuplicationRuleEventSchemas = {
  DuplicationRuleCreated: z.object({ rule: DuplicationRuleSchema }),
  DuplicationRuleUpdated: z.object({ rule: DuplicationRuleSchema }),
  DuplicationRulesReset: z.object({ ruleIds: z.array(z.string()), by: z.string(), at: z.string() }),
};
export type DuplicationRuleEvent = EventsOf<typeof DuplicationRuleEventSchemas>;

export interface DuplicationRulesState {
  status: 'rules';
  rules: DuplicationRule[];
}

export function evolveDuplicationRules(
  state: DuplicationRulesState,
  event: DuplicationRuleEvent,
): DuplicationRulesState {
  switch (event.type) {
    case 'DuplicationRuleCreated':
      return { ...state, rules: [...state.rules, event.data.rule] };
    case 'DuplicationRuleUpdated':
      return { ...state, rules: state.rules.map((r) => (r.id === event.data.rule.id ? event.data.rule : r)) };
    case 'DuplicationRulesReset': {
      const reset = new Set(event.data.ruleIds);
      return {
        ...state,
        rules: state.rules.map((r) =>
          reset.has(r.id)
            ? {
                ...r,
                generation: r.generation + 1,
                resetAt: event.data.at,
                updatedAt: event.data.at,
                updatedBy: event.data.by,
              }
            : r,
        ),
      };
    }
  }
}

export const duplicationRulesAggregate: Aggregate<DuplicationRulesState, DuplicationRuleEvent> = {
  // One stream per tenant: the id part is fixed.
  stream: (tenantId) => `monitoring.duplication-rules-${tenantId}-all`,
  eventTypes: Object.keys(DuplicationRuleEventSchemas) as DuplicationRuleEvent['type'][],
  initialState: { status: 'rules', rules: [] },
  evolve: evolveDuplicationRules,
  read: eventReader('duplication rule', DuplicationRuleEventSchemas),
};

// ---- remembered keys ------------------------------------------------------------------

export const DuplicateKeyEventSchemas = {
  DuplicateKeyAccepted: z.object({ ruleId: z.string(), eventId: z.string(), occurredAt: z.string() }),
};
export type DuplicateKeyEvent = EventsOf<typeof DuplicateKeyEventSchemas>;
export const readDuplicateKeyEvent = eventReader('duplicate key', DuplicateKeyEventSchemas);

/** How many of a key's latest acceptances are read back to decide (newest first). */
export const DUPLICATE_KEY_LOOKBACK = 50;

/** The stream of one key of one rule generation; the key is hashed (field values stay out of stream names). */
export function duplicateKeyStream(
  tenantId: string,
  rule: Pick<DuplicationRule, 'id' | 'generation'>,
  key: string,
): string {
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 40);
  return `monitoring.duplicate-key-${tenantId}-${rule.id}-g${rule.generation}-${digest}`;
}
