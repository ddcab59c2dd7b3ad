import { expect } from 'chai';
import { tokenOverlap, tokenOverlapJudge, tokensOf } from '../../../src/contexts/evaluation/judge';
import { shapeViolations } from '../../../src/contexts/evaluation/shape-check';
import { planCases } from '../../../src/contexts/evaluation/runner';
import type { CaptureRow } from '../../../queries/evaluation/captures';

describe('eval grading', () => {
  it('tokens keep identifiers such as API numbers and form names whole', () => {
    expect(tokensOf('Well 42-123-45678 needs a W-1, then G-10.')).to.deep.equal([
      'well',
      '42-123-45678',
      'needs',
      'w-1',
      'then',
      'g-10',
    ]);
  });

  it('the builtin judge is deterministic token-overlap F1 with a rationale naming what is missing', async () => {
    const a = await tokenOverlapJudge.grade(
      'File form W-1 for well 42-123-45678',
      'You must file form W-1 for well 42-123-45678 today',
    );
    const b = await tokenOverlapJudge.grade(
      'File form W-1 for well 42-123-45678',
      'You must file form W-1 for well 42-123-45678 today',
    );
    expect(a).to.deep.equal(b);
    expect(a.score).to.be.closeTo(0.8, 0.001);
    expect((await tokenOverlapJudge.grade('File form W-1', 'Nothing relevant')).score).to.equal(0);
    expect((await tokenOverlapJudge.grade('File form W-1 and G-10', 'File form W-1')).rationale).to.match(
      /expected but absent: and, g-10/,
    );
    expect(tokenOverlap('same words', 'same words').f1).to.equal(1);
  });

  it('a pin breaks on status, an empty answer, other tools or other skills (as sets)', () => {
    const frozen = { status: 'completed', answer: 'ok', toolNames: ['graph_context', 'graph_context'], skills: ['w1'] };
    expect(
      shapeViolations(frozen, {
        status: 'completed',
        answer: 'different words',
        toolNames: ['graph_context'],
        skills: ['w1'],
      }),
    ).to.deep.equal([]);
    expect(shapeViolations(frozen, { status: 'error', answer: ' ', toolNames: [], skills: [] })).to.deep.equal([
      'status: expected completed, got error',
      'answer: the replay produced no answer',
      'tools: expected [graph_context], got []',
      'skills: expected [w1], got []',
    ]);
  });

  it('cases: expected output makes an expert case, a thumbs-up without one a pin, a thumbs-down without one is skipped', () => {
    const row = (capture_id: string, score: number, expected_output: string | null) =>
      ({ capture_id, score, expected_output }) as CaptureRow;
    const { cases, skipped } = planCases([
      row('a', -1, 'expected'),
      row('b', 1, null),
      row('c', -1, null),
      row('d', 1, '  '),
    ]);
    expect(cases.map((c) => [c.capture.capture_id, c.source])).to.deep.equal([
      ['a', 'expert'],
      ['b', 'pin'],
      ['d', 'pin'],
    ]);
    expect(skipped).to.equal(1);
  });
});
