import { z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import {
  NAMESPACE_NAME,
  namespaceAggregate,
  type NamespaceEvent,
  type NamespaceState,
} from '../../streams/prompts/namespace';

export const CreateNamespaceBody = z
  .object({
    name: z
      .string()
      .max(64)
      .regex(NAMESPACE_NAME, 'a lower-case slug: a letter, then letters, digits, _ or -, at most 64'),
    description: z.string().max(2000).default(''),
  })
  .strict();

export type CreateNamespace = {
  type: 'CreateNamespace';
  namespaceId: string;
  name: string;
  description: string;
  actorId: string;
};

export function decideCreateNamespace(command: CreateNamespace, state: NamespaceState, now: Date): NamespaceEvent[] {
  switch (command.type) {
    case 'CreateNamespace':
      if (state.status !== 'none') throw new Conflict('Prompt namespace already exists');
      return [
        {
          type: 'PromptNamespaceCreated',
          data: {
            namespaceId: command.namespaceId,
            name: command.name,
            description: command.description,
            createdBy: command.actorId,
            createdAt: now.toISOString(),
          },
        },
      ];
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<CreateNamespace, NamespaceState, NamespaceEvent> = {
  ...namespaceAggregate,
  decide: decideCreateNamespace,
};

/** The name is unique per tenant: a reservation appended with the namespace's first event. */
export async function createNamespace(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  body: z.infer<typeof CreateNamespaceBody>,
): Promise<string> {
  const namespaceId = newId(context, 'prompts.namespace');
  await deps.handle(
    decider,
    namespaceAggregate.stream(context.tenantId, namespaceId),
    { type: 'CreateNamespace', namespaceId, name: body.name, description: body.description, actorId: context.actorId },
    context,
    {
      reserve: [
        {
          context: 'prompts',
          tenantId: context.tenantId,
          kind: 'namespace-name',
          value: body.name,
          label: `prompt namespace "${body.name}"`,
        },
      ],
    },
  );
  return namespaceId;
}
