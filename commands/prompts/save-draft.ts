import { z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, Forbidden } from '../../src/platform/domain-errors';
import { validatedForSave } from '../../streams/prompts/validate-template';
import { validationContext } from '../../queries/prompts/templates';
import {
  templateAggregate,
  type TemplateEvent,
  type TemplateState,
  type Validation,
} from '../../streams/prompts/template';
import { PROMPT_BODY_MAX } from './create-draft';
import { liveTemplate, versionIn } from './template-guards';

export const SaveDraftBody = z
  .object({ body: z.string().min(1).max(PROMPT_BODY_MAX), change_note: z.string().max(2000).optional() })
  .strict();

export type SaveDraft = {
  type: 'SaveDraft';
  versionId: string;
  actorId: string;
  body: string;
  changeNote: string | null;
  validation: Validation;
};

export function decideSaveDraft(command: SaveDraft, state: TemplateState, now: Date): TemplateEvent[] {
  switch (command.type) {
    case 'SaveDraft': {
      const template = liveTemplate(state);
      const version = versionIn(template, command.versionId);
      if (version.status !== 'draft')
        throw new Conflict(`Only a draft can be saved; this version is ${version.status}`);
      if (version.authorId !== command.actorId) throw new Forbidden('Only the author may save this draft');
      const { versionId, body, changeNote, validation } = command;
      return [
        {
          type: 'PromptDraftSaved',
          data: {
            templateId: template.templateId,
            versionId,
            body,
            changeNote,
            tokenEstimate: validation.tokenEstimate,
            validation,
            savedBy: command.actorId,
            savedAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<SaveDraft, TemplateState, TemplateEvent> = { ...templateAggregate, decide: decideSaveDraft };

export async function saveDraft(
  deps: Pick<PlatformDeps, 'handle' | 'knex'>,
  context: CommandContext,
  templateId: string,
  versionId: string,
  input: z.infer<typeof SaveDraftBody>,
): Promise<void> {
  const validation = validatedForSave(input.body, await validationContext(deps.knex, context.tenantId, templateId));
  await deps.handle(
    decider,
    templateAggregate.stream(context.tenantId, templateId),
    {
      type: 'SaveDraft',
      versionId,
      actorId: context.actorId,
      body: input.body,
      changeNote: input.change_note ?? null,
      validation,
    },
    context,
  );
}
