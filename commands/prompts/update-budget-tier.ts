import type { z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { namespaceAggregate, type NamespaceEvent, type NamespaceState } from '../../streams/prompts/namespace';
import type { BudgetTierBody } from './budget-tier-fields';

export type UpdateBudgetTier = {
  type: 'UpdateBudgetTier';
  tierId: string;
  name: string;
  maxTokens: number;
  description: string;
  actorId: string;
};

export function decideUpdateBudgetTier(command: UpdateBudgetTier, state: NamespaceState, now: Date): NamespaceEvent[] {
  switch (command.type) {
    case 'UpdateBudgetTier': {
      if (state.status !== 'active' || !state.tiers[command.tierId]) throw new NotFound('Budget tier not found');
      if (Object.entries(state.tiers).some(([id, name]) => id !== command.tierId && name === command.name))
        throw new Conflict(`Budget tier "${command.name}" already exists in this namespace`);
      const { tierId, name, maxTokens, description } = command;
      return [
        {
          type: 'PromptBudgetTierUpdated',
          data: {
            namespaceId: state.namespaceId,
            tierId,
            name,
            maxTokens,
            description,
            updatedBy: command.actorId,
            updatedAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<UpdateBudgetTier, NamespaceState, NamespaceEvent> = {
  ...namespaceAggregate,
  decide: decideUpdateBudgetTier,
};

export async function updateBudgetTier(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  namespaceId: string,
  tierId: string,
  body: z.infer<typeof BudgetTierBody>,
): Promise<void> {
  await deps.handle(
    decider,
    namespaceAggregate.stream(context.tenantId, namespaceId),
    {
      type: 'UpdateBudgetTier',
      tierId,
      name: body.name,
      maxTokens: body.max_tokens,
      description: body.description,
      actorId: context.actorId,
    },
    context,
  );
}
