import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * A prompt namespace: the first half of a template's address
 * `<namespace>:<slug>` and the holder of budget tiers. One stream per namespace; its name is
 * unique per tenant through a reservation (kind `namespace-name`), decided on the write side.
 */
export const NAMESPACE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

const Tier = z.object({ name: z.string(), maxTokens: z.number().int().positive(), description: z.string() });

export const NamespaceEventSchemas = {
  PromptNamespaceCreated: z.object({
    namespaceId: z.string(),
    name: z.string(),
    description: z.string(),
    createdBy: z.string(),
    createdAt: z.string(),
  }),
  PromptNamespaceUpdated: z.object({
    namespaceId: z.string(),
    description: z.string(),
    updatedBy: z.string(),
    updatedAt: z.string(),
  }),
  PromptBudgetTierCreated: Tier.extend({
    namespaceId: z.string(),
    tierId: z.string(),
    createdBy: z.string(),
    createdAt: z.string(),
  }),
  PromptBudgetTierUpdated: Tier.extend({
    namespaceId: z.string(),
    tierId: z.string(),
    updatedBy: z.string(),
    updatedAt: z.string(),
  }),
  PromptBudgetTierDeleted: z.object({
    namespaceId: z.string(),
    tierId: z.string(),
    deletedBy: z.string(),
    deletedAt: z.string(),
  }),
};

export type NamespaceEvent = EventsOf<typeof NamespaceEventSchemas>;

/** Decision state: the name (immutable, it is part of every address) and the live tier names. */
export type NamespaceState =
  { status: 'none' } | { status: 'active'; namespaceId: string; name: string; tiers: Record<string, string> };

export function evolveNamespace(state: NamespaceState, event: NamespaceEvent): NamespaceState {
  switch (event.type) {
    case 'PromptNamespaceCreated':
      return { status: 'active', namespaceId: event.data.namespaceId, name: event.data.name, tiers: {} };
    case 'PromptNamespaceUpdated':
      return state;
    case 'PromptBudgetTierCreated':
    case 'PromptBudgetTierUpdated':
      return state.status === 'active'
        ? { ...state, tiers: { ...state.tiers, [event.data.tierId]: event.data.name } }
        : state;
    case 'PromptBudgetTierDeleted': {
      if (state.status !== 'active') return state;
      const { [event.data.tierId]: _gone, ...tiers } = state.tiers;
      return { ...state, tiers };
    }
  }
}

export const namespaceAggregate: Aggregate<NamespaceState, NamespaceEvent> = {
  stream: (tenantId, id) => `prompts.namespace-${tenantId}-${id}`,
  eventTypes: Object.keys(NamespaceEventSchemas) as NamespaceEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveNamespace,
  read: eventReader('prompt namespace', NamespaceEventSchemas),
};
