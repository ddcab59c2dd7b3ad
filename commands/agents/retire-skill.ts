import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound } from '../../src/platform/domain-errors';
import { skillAggregate, type SkillEvent, type SkillState } from '../../streams/agents/skill';

export interface RetireSkill {
  type: 'RetireSkill';
  key: string;
  actorId: string;
  /** A built-in skill of that key exists, so retiring hides it even with no tenant version. */
  builtIn: boolean;
}

export function decideRetireSkill(command: RetireSkill, state: SkillState, now: Date): SkillEvent[] {
  if (state.status === 'retired') throw new NotFound(`skill ${command.key} not found`);
  if (state.status === 'none' && !command.builtIn) throw new NotFound(`skill ${command.key} not found`);
  return [
    { type: 'SkillRetired', data: { key: command.key, retiredBy: command.actorId, retiredAt: now.toISOString() } },
  ];
}

const decider: Decider<RetireSkill, SkillState, SkillEvent> = { ...skillAggregate, decide: decideRetireSkill };

export async function retireSkill(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  key: string,
  builtIn: boolean,
) {
  return deps.handle(
    decider,
    skillAggregate.stream(context.tenantId, key),
    { type: 'RetireSkill', key, actorId: context.actorId, builtIn },
    context,
  );
}
