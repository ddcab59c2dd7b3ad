import { expect } from 'chai';
import pino from 'pino';
import { appendMessageCommand } from '../../../commands/conversations/append-message';
import { SLOW_WAIT_MS, TurnWrites } from '../../../src/contexts/agents/turn-writes';
import type { CommandHandler } from '../../../src/platform/command-handling/command-handler';

/** A handler that records what each write held: one entry per write, the streams and commands it took. */
function recordingHandle(fail = false) {
  const writes: Array<Array<{ stream: string; command: unknown }>> = [];
  const handle = (async (_decider: unknown, stream: string, command: unknown) => {
    writes.push([{ stream, command }]);
    return { state: null, events: [], position: null };
  }) as unknown as CommandHandler;
  handle.together = (async (decisions: Array<{ stream: string; command: unknown }>) => {
    if (fail) throw new Error('store unavailable');
    writes.push(decisions.map((d) => ({ stream: d.stream, command: d.command })));
    return decisions.map(() => ({ state: null, events: [], position: null }));
  }) as unknown as CommandHandler['together'];
  return { handle, writes };
}

const context = { tenantId: 't1', actorId: 'u1' };
const turn = { conversationId: 'c1', executionId: 'e1' };
const node = (name: string) => ({
  type: 'NodeCompleted' as const,
  data: { node: name as never, status: 'ok', tokensUsed: null, message: null, skillsLoaded: null, detail: null },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const usage = {
  userId: 'u1',
  model: 'builtin',
  inputTokens: null,
  outputTokens: null,
  tokensUsed: null,
  costUsd: null,
};
const outcome = {
  status: 'completed' as const,
  tokensUsed: null,
  costUsd: null,
  skillsInjected: [],
  thinkingMode: null,
  referencedEntities: [],
  hitlApprovalId: null,
  hitlCheckpointType: null,
  error: null,
};

describe('a turn’s writes', () => {
  it('given a wait that answers at once, when the turn ends, then its progress, messages and end are one write', async () => {
    const { handle, writes } = recordingHandle();
    const w = new TurnWrites({ handle, logger: pino({ level: 'silent' }) }, context, turn);
    w.record([node('system_prompt_node')]);
    await w.whileWaiting(Promise.resolve('reply'));
    w.message(appendMessageCommand('u1', { role: 'assistant', content: 'done' }));
    await w.finish({ outcome, usage });
    expect(writes).to.have.length(1);
    const [end, rows] = writes[0];
    expect(end.stream).to.include('e1');
    expect(rows.stream).to.include('c1');
    expect(rows.command).to.have.length(1);
    expect((writes[0][0].command as { progress: unknown[] }).progress).to.have.length(1);
  });

  it('given a slow wait, when it lasts past SLOW_WAIT_MS, then what was held is written before the wait ends, in order before the end', async () => {
    const { handle, writes } = recordingHandle();
    const w = new TurnWrites({ handle, logger: pino({ level: 'silent' }) }, context, turn);
    w.record([node('system_prompt_node')]);
    w.message(appendMessageCommand('u1', { role: 'tool', content: 'rows' }));
    let seenDuringWait = 0;
    await w.whileWaiting(sleep(SLOW_WAIT_MS * 3).then(() => (seenDuringWait = writes.length)));
    expect(seenDuringWait, 'written while the model was still thinking').to.equal(1);
    expect(writes[0]).to.have.length(2);
    await w.finish({ outcome, usage });
    expect(writes).to.have.length(2);
    expect((writes[1][0].command as { progress: unknown[] }).progress, 'nothing written twice').to.have.length(0);
  });

  it('given a write that failed during a slow wait, when the turn settles, then the failure surfaces', async () => {
    const { handle } = recordingHandle(true);
    const w = new TurnWrites({ handle, logger: pino({ level: 'silent' }) }, context, turn);
    w.record([node('system_prompt_node')]);
    await w.whileWaiting(sleep(SLOW_WAIT_MS * 2));
    let failed: unknown;
    await w.settled().catch((err) => (failed = err));
    expect(String(failed)).to.match(/store unavailable/);
  });
});
