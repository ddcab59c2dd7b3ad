import { type z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound } from '../../src/platform/domain-errors';
import { findTier } from '../../queries/prompts/namespaces';
import { templateAggregate, type TemplateEvent, type TemplateState } from '../../streams/prompts/template';
import { CreateTemplateBody } from './create-template';
import { liveTemplate } from './template-guards';

/** The address (namespace and slug) is fixed; everything else may change. */
export const UpdateTemplateBody = CreateTemplateBody.pick({
  name: true,
  description: true,
  budget_tier_id: true,
  variables: true,
})
  .partial()
  .strict();

export type UpdateTemplate = {
  type: 'UpdateTemplate';
  name?: string;
  description?: string;
  budgetTierId?: string | null;
  variables?: string[] | null;
  actorId: string;
};

export function decideUpdateTemplate(command: UpdateTemplate, state: TemplateState, now: Date): TemplateEvent[] {
  switch (command.type) {
    case 'UpdateTemplate': {
      const template = liveTemplate(state);
      const { type: _type, actorId, ...changes } = command;
      return [
        {
          type: 'PromptTemplateUpdated',
          data: { templateId: template.templateId, ...changes, updatedBy: actorId, updatedAt: now.toISOString() },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<UpdateTemplate, TemplateState, TemplateEvent> = {
  ...templateAggregate,
  decide: decideUpdateTemplate,
};

export async function updateTemplate(
  deps: Pick<PlatformDeps, 'handle' | 'knex'>,
  context: CommandContext,
  templateId: string,
  namespaceId: string,
  body: z.infer<typeof UpdateTemplateBody>,
): Promise<void> {
  if (body.budget_tier_id) {
    const tier = await findTier(deps.knex, context.tenantId, body.budget_tier_id);
    if (!tier || tier.namespace_id !== namespaceId) throw new NotFound('Budget tier not found in this namespace');
  }
  const command: UpdateTemplate = { type: 'UpdateTemplate', actorId: context.actorId };
  if (body.name !== undefined) command.name = body.name;
  if (body.description !== undefined) command.description = body.description;
  if (body.budget_tier_id !== undefined) command.budgetTierId = body.budget_tier_id;
  if (body.variables !== undefined) command.variables = body.variables;
  await deps.handle(decider, templateAggregate.stream(context.tenantId, templateId), command, context);
}
