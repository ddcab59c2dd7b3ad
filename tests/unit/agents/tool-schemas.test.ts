import { expect } from 'chai';
import { loadSkillTool } from '../../../src/contexts/agents/turn-tools';
import { parameterSchema } from '../../../commands/connectors/exposure-content';
import type { ExposureParameter } from '../../../streams/connectors/connector';
import { toolInputSchema } from '../../../src/platform/infra/llm/ai-sdk';

/**
 * Tools built every turn (`load_skill`, a connector's exposures) reuse their schema objects,
 * so the JSON schema the model reads is converted once, not once per turn, and still
 * validates exactly as declared.
 */
describe('tool schemas built per turn', () => {
  const hooks = { skillLoaded: () => undefined, approvalAsked: () => undefined };

  it('load_skill: two turns share one schema and one converted JSON schema', () => {
    const first = loadSkillTool([], hooks);
    const second = loadSkillTool(
      [
        {
          key: 'rule_32',
          name: 'Rule 32',
          description: '',
          triggerWords: [],
          instructions: '',
          version: 1,
          builtIn: true,
        },
      ],
      hooks,
    );
    expect(second.parameters).to.equal(first.parameters);
    expect(toolInputSchema(second.parameters)).to.equal(toolInputSchema(first.parameters));
    expect(second.parameters.safeParse({ skill_key: 'rule_32' }).success).to.equal(true);
    expect(second.parameters.safeParse({ skill_key: 'rule_32', extra: 1 }).success).to.equal(false);
  });

  it('an exposure: the same declaration read again gives the same schema; another declaration its own', () => {
    const declared = (): ExposureParameter[] => [
      { name: 'lease', type: 'string', required: true, description: 'lease number' },
      { name: 'month', type: 'date', required: false, description: '' },
    ];
    const first = parameterSchema(declared());
    expect(parameterSchema(declared())).to.equal(first);
    expect(toolInputSchema(parameterSchema(declared()))).to.equal(toolInputSchema(first));
    const other = parameterSchema([{ name: 'lease', type: 'integer', required: true, description: 'lease number' }]);
    expect(other).to.not.equal(first);
    expect(first.safeParse({ lease: '0123', month: null }).success).to.equal(true);
    expect(first.safeParse({ lease: 123 }).success).to.equal(false);
    expect(other.safeParse({ lease: 123 }).success).to.equal(true);
  });
});
