import { z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { validatedForSave } from '../../streams/prompts/validate-template';
import { validationContext } from '../../queries/prompts/templates';
import {
  templateAggregate,
  type TemplateEvent,
  type TemplateState,
  type Validation,
} from '../../streams/prompts/template';
import { liveTemplate } from './template-guards';

export const PROMPT_BODY_MAX = 100_000;

export const CreateDraftBody = z
  .object({ body: z.string().min(1).max(PROMPT_BODY_MAX), change_note: z.string().max(2000).default('') })
  .strict();

export type CreateDraft = {
  type: 'CreateDraft';
  versionId: string;
  authorId: string;
  body: string;
  changeNote: string;
  validation: Validation;
};

/**
 * One draft per author per template: decided here, against the template stream's own state
 * at the revision read, so two concurrent creates by the same author cannot both append.
 */
export function decideCreateDraft(command: CreateDraft, state: TemplateState, now: Date): TemplateEvent[] {
  switch (command.type) {
    case 'CreateDraft': {
      const template = liveTemplate(state);
      if (template.versions[command.versionId]) return [];
      const own = Object.entries(template.versions).find(
        ([, v]) => v.status === 'draft' && v.authorId === command.authorId,
      );
      if (own)
        throw new Conflict('You already have a draft of this template; save or discard it first', {
          existing_draft_id: own[0],
        });
      const { versionId, authorId, body, changeNote, validation } = command;
      return [
        {
          type: 'PromptDraftCreated',
          data: {
            templateId: template.templateId,
            versionId,
            versionNumber: template.nextVersionNumber,
            authorId,
            body,
            changeNote,
            tokenEstimate: validation.tokenEstimate,
            validation,
            createdAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<CreateDraft, TemplateState, TemplateEvent> = { ...templateAggregate, decide: decideCreateDraft };

export async function createDraft(
  deps: Pick<PlatformDeps, 'handle' | 'knex'>,
  context: CommandContext,
  templateId: string,
  input: z.infer<typeof CreateDraftBody>,
): Promise<string> {
  const validation = validatedForSave(input.body, await validationContext(deps.knex, context.tenantId, templateId));
  const versionId = newId(context, 'prompts.version');
  await deps.handle(
    decider,
    templateAggregate.stream(context.tenantId, templateId),
    {
      type: 'CreateDraft',
      versionId,
      authorId: context.actorId,
      body: input.body,
      changeNote: input.change_note,
      validation,
    },
    context,
  );
  return versionId;
}
