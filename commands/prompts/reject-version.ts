import { z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { promptResolveCache } from './resolve-cache';
import { templateAggregate, type TemplateEvent, type TemplateState } from '../../streams/prompts/template';
import { liveTemplate, versionIn } from './template-guards';

export const RejectVersionBody = z.object({ reason: z.string().max(2000).default('') }).strict();

/** A rejected version leaves pre-production for good (status `rejected`); its author drafts anew. */
export type RejectVersion = { type: 'RejectVersion'; versionId: string; actorId: string; reason: string };

export function decideRejectVersion(command: RejectVersion, state: TemplateState, now: Date): TemplateEvent[] {
  switch (command.type) {
    case 'RejectVersion': {
      const template = liveTemplate(state);
      const version = versionIn(template, command.versionId);
      if (version.status !== 'pre_production')
        throw new Conflict(`Only a pre-production version can be rejected; this version is ${version.status}`);
      return [
        {
          type: 'PromptRejected',
          data: {
            templateId: template.templateId,
            versionId: command.versionId,
            reason: command.reason,
            rejectedBy: command.actorId,
            rejectedAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<RejectVersion, TemplateState, TemplateEvent> = {
  ...templateAggregate,
  decide: decideRejectVersion,
};

export async function rejectVersion(
  deps: Pick<PlatformDeps, 'handle' | 'cache' | 'logger'>,
  context: CommandContext,
  templateId: string,
  versionId: string,
  input: z.infer<typeof RejectVersionBody>,
): Promise<void> {
  await deps.handle(
    decider,
    templateAggregate.stream(context.tenantId, templateId),
    { type: 'RejectVersion', versionId, actorId: context.actorId, reason: input.reason },
    context,
  );
  await promptResolveCache(deps).invalidate({ tenantId: context.tenantId, templateId });
}
