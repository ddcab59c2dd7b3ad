import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';

/**
 * The baseline of one (tenant, model): a stream of its own, so "at
 * most one baseline per tenant and model" is decided by one stream's revision, and a
 * promotion is one event that names the run it demotes (the read model flips both rows in
 * the same transaction).
 */
export const baselineKeyOf = (modelId: string) => derivedUuid('evaluation.baseline', modelId);

export const BaselineEventSchemas = {
  BaselinePromoted: z.object({
    modelId: z.string(),
    runId: z.string(),
    previousRunId: z.string().nullable(),
    promotedBy: z.string(),
    promotedAt: z.string(),
  }),
};
export type BaselineEvent = EventsOf<typeof BaselineEventSchemas>;
export const readBaselineEvent = eventReader('evaluation baseline', BaselineEventSchemas);

export type BaselineState = { status: 'none' } | { status: 'set'; modelId: string; runId: string };

export function evolveBaseline(_state: BaselineState, event: BaselineEvent): BaselineState {
  return { status: 'set', modelId: event.data.modelId, runId: event.data.runId };
}

export const baselineAggregate: Aggregate<BaselineState, BaselineEvent> = {
  stream: (tenantId, modelKey) => `evaluation.baseline-${tenantId}-${modelKey}`,
  eventTypes: ['BaselinePromoted'],
  initialState: { status: 'none' },
  evolve: evolveBaseline,
  read: readBaselineEvent,
};
