import { decideDefineSkill, type DefineSkill } from '../../../commands/agents/define-skill';
import { decideRetireSkill, type RetireSkill } from '../../../commands/agents/retire-skill';
import { NotFound } from '../../../src/platform/domain-errors';
import { skillAggregate, type SkillEvent } from '../../../streams/agents/skill';
import { given } from '../../support/given';

const decider = {
  ...skillAggregate,
  decide: (command: DefineSkill | RetireSkill, state: Parameters<typeof decideDefineSkill>[1], now: Date) =>
    command.type === 'DefineSkill' ? decideDefineSkill(command, state, now) : decideRetireSkill(command, state, now),
};
const at = '2026-01-15T12:00:00.000Z';
const body = {
  name: 'Spills',
  description: 'Rule 20',
  trigger_words: ['Spill', 'spill', 'leak'],
  instructions: 'Report within 24 hours.',
};
const defined = (version: number): SkillEvent => ({
  type: 'SkillDefined',
  data: {
    key: 'spills',
    name: 'Spills',
    description: 'Rule 20',
    triggerWords: ['spill', 'leak'],
    instructions: 'Report within 24 hours.',
    version,
    definedBy: 'u1',
    definedAt: at,
  },
});

describe('skill decider', () => {
  it('defining a skill stores lower-cased, de-duplicated trigger words as version 1', () => {
    given(decider)
      .when({ type: 'DefineSkill', key: 'spills', body, actorId: 'u1' })
      .then([defined(1)]);
  });

  it('each edit is a new version, also after retirement', () => {
    given(decider, [defined(1)])
      .when({ type: 'DefineSkill', key: 'spills', body, actorId: 'u1' })
      .then([defined(2)]);
    const retired: SkillEvent = { type: 'SkillRetired', data: { key: 'spills', retiredBy: 'u1', retiredAt: at } };
    given(decider, [defined(1), retired])
      .when({ type: 'DefineSkill', key: 'spills', body, actorId: 'u1' })
      .then([defined(2)]);
  });

  it('retiring an unknown skill is 404 unless a built-in one has that key; retiring twice is 404', () => {
    given(decider).when({ type: 'RetireSkill', key: 'nope', actorId: 'u1', builtIn: false }).thenThrows(NotFound);
    given(decider)
      .when({ type: 'RetireSkill', key: 'flaring_authorization', actorId: 'u1', builtIn: true })
      .then([{ type: 'SkillRetired', data: { key: 'flaring_authorization', retiredBy: 'u1', retiredAt: at } }]);
    const retired: SkillEvent = { type: 'SkillRetired', data: { key: 'spills', retiredBy: 'u1', retiredAt: at } };
    given(decider, [defined(1), retired])
      .when({ type: 'RetireSkill', key: 'spills', actorId: 'u1', builtIn: false })
      .thenThrows(NotFound);
  });
});
