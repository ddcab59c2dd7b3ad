import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound } from '../../src/platform/domain-errors';
import { namespaceAggregate, type NamespaceEvent, type NamespaceState } from '../../streams/prompts/namespace';

/** Templates on a deleted tier keep working without a budget (the projection clears their tier). */
export type DeleteBudgetTier = { type: 'DeleteBudgetTier'; tierId: string; actorId: string };

export function decideDeleteBudgetTier(command: DeleteBudgetTier, state: NamespaceState, now: Date): NamespaceEvent[] {
  switch (command.type) {
    case 'DeleteBudgetTier':
      if (state.status !== 'active' || !state.tiers[command.tierId]) throw new NotFound('Budget tier not found');
      return [
        {
          type: 'PromptBudgetTierDeleted',
          data: {
            namespaceId: state.namespaceId,
            tierId: command.tierId,
            deletedBy: command.actorId,
            deletedAt: now.toISOString(),
          },
        },
      ];
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<DeleteBudgetTier, NamespaceState, NamespaceEvent> = {
  ...namespaceAggregate,
  decide: decideDeleteBudgetTier,
};

export async function deleteBudgetTier(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  namespaceId: string,
  tierId: string,
): Promise<void> {
  await deps.handle(
    decider,
    namespaceAggregate.stream(context.tenantId, namespaceId),
    { type: 'DeleteBudgetTier', tierId, actorId: context.actorId },
    context,
  );
}
