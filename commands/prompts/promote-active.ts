import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, ValidationFailed } from '../../src/platform/domain-errors';
import { promptResolveCache } from './resolve-cache';
import { templateAggregate, type TemplateEvent, type TemplateState } from '../../streams/prompts/template';
import { liveTemplate, versionIn } from './template-guards';

/**
 * The direct path to active ("any → active"): a draft, a pre-production version, or
 * a retired one (a rollback). The two-person rule holds here too: the promoter is not the
 * author. A rejected version stays rejected; the active version is retired by this event.
 */
export type PromoteActive = { type: 'PromoteActive'; versionId: string; actorId: string };

export function decidePromoteActive(command: PromoteActive, state: TemplateState, now: Date): TemplateEvent[] {
  switch (command.type) {
    case 'PromoteActive': {
      const template = liveTemplate(state);
      const version = versionIn(template, command.versionId);
      if (version.status === 'active') throw new Conflict('This version is already active');
      if (version.status === 'rejected')
        throw new Conflict('A rejected version cannot be promoted; draft a new version');
      if (version.authorId === command.actorId)
        throw new Conflict('The author cannot promote their own version to active; another approver must');
      if (!version.valid)
        throw new ValidationFailed([
          {
            loc: ['path', 'id'],
            msg: 'the version failed validation (see its validation_result)',
            type: 'invalid_version',
          },
        ]);
      return [
        {
          type: 'PromptPromoted',
          data: {
            templateId: template.templateId,
            versionId: command.versionId,
            fromStatus: version.status,
            retiredVersionId: template.activeVersionId,
            promotedBy: command.actorId,
            promotedAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<PromoteActive, TemplateState, TemplateEvent> = {
  ...templateAggregate,
  decide: decidePromoteActive,
};

export async function promoteActive(
  deps: Pick<PlatformDeps, 'handle' | 'cache' | 'logger'>,
  context: CommandContext,
  templateId: string,
  versionId: string,
): Promise<void> {
  await deps.handle(
    decider,
    templateAggregate.stream(context.tenantId, templateId),
    { type: 'PromoteActive', versionId, actorId: context.actorId },
    context,
  );
  await promptResolveCache(deps).invalidate({ tenantId: context.tenantId, templateId });
}
