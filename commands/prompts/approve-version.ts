import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { promptResolveCache } from './resolve-cache';
import { templateAggregate, type TemplateEvent, type TemplateState } from '../../streams/prompts/template';
import { liveTemplate, versionIn } from './template-guards';

/**
 * Two-person approval: someone other than the author approves a pre-production version,
 * which makes it active; the version active until then is retired by the same
 * `PromptPromoted` event.
 */
export type ApproveVersion = { type: 'ApproveVersion'; versionId: string; actorId: string };

export function decideApproveVersion(command: ApproveVersion, state: TemplateState, now: Date): TemplateEvent[] {
  switch (command.type) {
    case 'ApproveVersion': {
      const template = liveTemplate(state);
      const version = versionIn(template, command.versionId);
      if (version.status !== 'pre_production')
        throw new Conflict(`Only a pre-production version can be approved; this version is ${version.status}`);
      if (version.authorId === command.actorId)
        throw new Conflict('The author cannot approve their own version; another approver must');
      const at = now.toISOString();
      const { templateId } = template;
      return [
        {
          type: 'PromptApproved',
          data: { templateId, versionId: command.versionId, approvedBy: command.actorId, approvedAt: at },
        },
        {
          type: 'PromptPromoted',
          data: {
            templateId,
            versionId: command.versionId,
            fromStatus: 'pre_production',
            retiredVersionId: template.activeVersionId,
            promotedBy: command.actorId,
            promotedAt: at,
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<ApproveVersion, TemplateState, TemplateEvent> = {
  ...templateAggregate,
  decide: decideApproveVersion,
};

export async function approveVersion(
  deps: Pick<PlatformDeps, 'handle' | 'cache' | 'logger'>,
  context: CommandContext,
  templateId: string,
  versionId: string,
): Promise<void> {
  await deps.handle(
    decider,
    templateAggregate.stream(context.tenantId, templateId),
    { type: 'ApproveVersion', versionId, actorId: context.actorId },
    context,
  );
  await promptResolveCache(deps).invalidate({ tenantId: context.tenantId, templateId });
}
