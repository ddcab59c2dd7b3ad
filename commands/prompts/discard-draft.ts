import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, Forbidden } from '../../src/platform/domain-errors';
import { templateAggregate, type TemplateEvent, type TemplateState } from '../../streams/prompts/template';
import { liveTemplate, versionIn } from './template-guards';

/** A discarded draft is removed from the read models; its events stay in the signed log. */
export type DiscardDraft = { type: 'DiscardDraft'; versionId: string; actorId: string };

export function decideDiscardDraft(command: DiscardDraft, state: TemplateState, now: Date): TemplateEvent[] {
  switch (command.type) {
    case 'DiscardDraft': {
      const template = liveTemplate(state);
      const version = versionIn(template, command.versionId);
      if (version.status !== 'draft')
        throw new Conflict(`Only a draft can be discarded; this version is ${version.status}`);
      if (version.authorId !== command.actorId) throw new Forbidden('Only the author may discard this draft');
      return [
        {
          type: 'PromptDraftDiscarded',
          data: {
            templateId: template.templateId,
            versionId: command.versionId,
            discardedBy: command.actorId,
            discardedAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<DiscardDraft, TemplateState, TemplateEvent> = {
  ...templateAggregate,
  decide: decideDiscardDraft,
};

export async function discardDraft(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  templateId: string,
  versionId: string,
): Promise<void> {
  await deps.handle(
    decider,
    templateAggregate.stream(context.tenantId, templateId),
    { type: 'DiscardDraft', versionId, actorId: context.actorId },
    context,
  );
}
