import type { z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { namespaceAggregate, type NamespaceEvent, type NamespaceState } from '../../streams/prompts/namespace';
import type { BudgetTierBody } from './budget-tier-fields';

export type CreateBudgetTier = {
  type: 'CreateBudgetTier';
  tierId: string;
  name: string;
  maxTokens: number;
  description: string;
  actorId: string;
};

export function decideCreateBudgetTier(command: CreateBudgetTier, state: NamespaceState, now: Date): NamespaceEvent[] {
  switch (command.type) {
    case 'CreateBudgetTier': {
      if (state.status !== 'active') throw new NotFound('Prompt namespace not found');
      if (state.tiers[command.tierId]) return [];
      if (Object.values(state.tiers).includes(command.name))
        throw new Conflict(`Budget tier "${command.name}" already exists in this namespace`);
      const { tierId, name, maxTokens, description } = command;
      return [
        {
          type: 'PromptBudgetTierCreated',
          data: {
            namespaceId: state.namespaceId,
            tierId,
            name,
            maxTokens,
            description,
            createdBy: command.actorId,
            createdAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<CreateBudgetTier, NamespaceState, NamespaceEvent> = {
  ...namespaceAggregate,
  decide: decideCreateBudgetTier,
};

export async function createBudgetTier(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  namespaceId: string,
  body: z.infer<typeof BudgetTierBody>,
): Promise<string> {
  const tierId = newId(context, 'prompts.tier');
  await deps.handle(
    decider,
    namespaceAggregate.stream(context.tenantId, namespaceId),
    {
      type: 'CreateBudgetTier',
      tierId,
      name: body.name,
      maxTokens: body.max_tokens,
      description: body.description,
      actorId: context.actorId,
    },
    context,
  );
  return tierId;
}
