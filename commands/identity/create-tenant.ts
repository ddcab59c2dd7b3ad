import { z } from 'zod';
import type { CommandContext, CommandHandler } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { tenantEvolution, type TenantEvent, type TenantState, tenantStream } from '../../streams/identity/tenant';

export const CreateTenantInput = z.object({ tenantId: z.string().uuid(), name: z.string().trim().min(1).max(200) });
export type CreateTenant = { type: 'CreateTenant' } & z.infer<typeof CreateTenantInput>;

/** Creating a tenant that exists is a no-op: start-up and test set-up repeat it freely. */
export function decideCreateTenant(command: CreateTenant, state: TenantState): TenantEvent[] {
  if (state.status !== 'none') return [];
  return [{ type: 'TenantCreated', data: { tenantId: command.tenantId, name: command.name } }];
}

const decider: Decider<CreateTenant, TenantState, TenantEvent> = { ...tenantEvolution, decide: decideCreateTenant };

export async function createTenant(
  handle: CommandHandler,
  input: z.infer<typeof CreateTenantInput>,
  context: Omit<CommandContext, 'tenantId'>,
): Promise<{ created: boolean }> {
  const { events } = await handle(
    decider,
    tenantStream(input.tenantId),
    { type: 'CreateTenant', ...input },
    { ...context, tenantId: input.tenantId },
  );
  return { created: events.length > 0 };
}
