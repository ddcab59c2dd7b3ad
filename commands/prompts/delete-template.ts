import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { promptResolveCache } from './resolve-cache';
import { templateAggregate, type TemplateEvent, type TemplateState } from '../../streams/prompts/template';
import { slugReservation } from './create-template';
import { liveTemplate } from './template-guards';

/** Deleting frees the slug; resolving the address then answers 404 (agents fall back to their built-in prompt). */
export type DeleteTemplate = { type: 'DeleteTemplate'; actorId: string };

export function decideDeleteTemplate(command: DeleteTemplate, state: TemplateState, now: Date): TemplateEvent[] {
  switch (command.type) {
    case 'DeleteTemplate': {
      const template = liveTemplate(state);
      return [
        {
          type: 'PromptTemplateDeleted',
          data: {
            templateId: template.templateId,
            namespaceId: template.namespaceId,
            slug: template.slug,
            deletedBy: command.actorId,
            deletedAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<DeleteTemplate, TemplateState, TemplateEvent> = {
  ...templateAggregate,
  decide: decideDeleteTemplate,
};

export async function deleteTemplate(
  deps: Pick<PlatformDeps, 'handle' | 'cache' | 'logger'>,
  context: CommandContext,
  template: { id: string; namespace_id: string; namespace: string; slug: string },
): Promise<void> {
  await deps.handle(
    decider,
    templateAggregate.stream(context.tenantId, template.id),
    { type: 'DeleteTemplate', actorId: context.actorId },
    context,
    {
      release: [slugReservation(context.tenantId, template.namespace_id, template.slug)],
    },
  );
  await promptResolveCache(deps).invalidate({
    tenantId: context.tenantId,
    templateId: template.id,
    ref: `${template.namespace}:${template.slug}`,
  });
}
