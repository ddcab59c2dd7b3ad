import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { skillAggregate, type SkillEvent, type SkillState } from '../../streams/agents/skill';

/** PUT /skills/{key} body. Trigger words are matched case-insensitively on word boundaries. */
export const DefineSkillBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().trim().max(2000).default(''),
    trigger_words: z.array(z.string().trim().min(1).max(100)).max(50).default([]),
    instructions: z.string().trim().min(1).max(20_000),
  })
  .strict();
export type DefineSkillBody = z.infer<typeof DefineSkillBody>;

export interface DefineSkill {
  type: 'DefineSkill';
  key: string;
  body: DefineSkillBody;
  actorId: string;
}

/** Creates or replaces a skill (also revives a retired key); each write is a new version. */
export function decideDefineSkill(command: DefineSkill, state: SkillState, now: Date): SkillEvent[] {
  const { body } = command;
  return [
    {
      type: 'SkillDefined',
      data: {
        key: command.key,
        name: body.name,
        description: body.description,
        triggerWords: [...new Set(body.trigger_words.map((w) => w.toLowerCase()))],
        instructions: body.instructions,
        version: state.status === 'none' ? 1 : state.version + 1,
        definedBy: command.actorId,
        definedAt: now.toISOString(),
      },
    },
  ];
}

const decider: Decider<DefineSkill, SkillState, SkillEvent> = { ...skillAggregate, decide: decideDefineSkill };

export async function defineSkill(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  key: string,
  body: DefineSkillBody,
) {
  return deps.handle(
    decider,
    skillAggregate.stream(context.tenantId, key),
    { type: 'DefineSkill', key, body, actorId: context.actorId },
    context,
  );
}
