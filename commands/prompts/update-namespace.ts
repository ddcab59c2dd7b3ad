import { z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound } from '../../src/platform/domain-errors';
import { namespaceAggregate, type NamespaceEvent, type NamespaceState } from '../../streams/prompts/namespace';

/** The name is part of every template address, so only the description changes. */
export const UpdateNamespaceBody = z.object({ description: z.string().max(2000) }).strict();

export type UpdateNamespace = { type: 'UpdateNamespace'; description: string; actorId: string };

export function decideUpdateNamespace(command: UpdateNamespace, state: NamespaceState, now: Date): NamespaceEvent[] {
  switch (command.type) {
    case 'UpdateNamespace':
      if (state.status !== 'active') throw new NotFound('Prompt namespace not found');
      return [
        {
          type: 'PromptNamespaceUpdated',
          data: {
            namespaceId: state.namespaceId,
            description: command.description,
            updatedBy: command.actorId,
            updatedAt: now.toISOString(),
          },
        },
      ];
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<UpdateNamespace, NamespaceState, NamespaceEvent> = {
  ...namespaceAggregate,
  decide: decideUpdateNamespace,
};

export async function updateNamespace(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  namespaceId: string,
  body: z.infer<typeof UpdateNamespaceBody>,
): Promise<void> {
  await deps.handle(
    decider,
    namespaceAggregate.stream(context.tenantId, namespaceId),
    { type: 'UpdateNamespace', description: body.description, actorId: context.actorId },
    context,
  );
}
