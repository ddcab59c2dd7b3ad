import path from 'node:path';
import { expect } from 'chai';
import { createWorkerPool, WorkerFailed, type WorkerPool } from '../../../src/platform/infra/extraction/worker-pool';
import { failure } from '../../support/failure';

/**
 * Slow uploads do not queue small ones: heavy work runs at most `maxHeavy` at a time and
 * never takes the last worker; a light task finding every worker held by heavy work gets a
 * burst worker; a light task found slow while it runs counts as heavy.
 */
const SCRIPT = path.join(__dirname, 'fixtures', 'sleeping-worker.ts');
type Reply = { name: string; startedAt: number; endedAt: number };

describe('worker pool lanes', function () {
  this.timeout(30_000);
  let pool: WorkerPool<{ name: string; ms: number; holdMb?: number }, Reply>;
  afterEach(() => pool?.close());

  it('two heavy tasks run one after the other, and a light task submitted after them finishes before either', async () => {
    pool = createWorkerPool({ script: SCRIPT, size: 2, timeLimitMs: 20_000, maxHeavy: 1, slowAfterMs: 300 });
    const finished: string[] = [];
    const track = (p: Promise<Reply>) => p.then((r) => (finished.push(r.name), r));
    const heavy1 = track(pool.run({ name: 'heavy-1', ms: 1500 }, [], { lane: 'heavy' }));
    const heavy2 = track(pool.run({ name: 'heavy-2', ms: 1500 }, [], { lane: 'heavy' }));
    await new Promise((r) => setTimeout(r, 100));
    const light = track(pool.run({ name: 'light', ms: 10 }));
    const [h1, h2] = await Promise.all([heavy1, heavy2, light]);
    expect(finished).to.deep.equal(['light', 'heavy-1', 'heavy-2']);
    expect(h2.startedAt, 'the second heavy task started after the first ended').to.be.at.least(h1.endedAt);
    expect(pool.size()).to.be.at.most(2);
  });

  it('light tasks found slow count as heavy: the next light task gets a burst worker instead of queueing, and the pool shrinks back', async () => {
    pool = createWorkerPool({ script: SCRIPT, size: 2, timeLimitMs: 20_000, maxHeavy: 1, slowAfterMs: 200, burst: 1 });
    const finished: string[] = [];
    const track = (p: Promise<Reply>) => p.then((r) => (finished.push(r.name), r));
    const slowA = track(pool.run({ name: 'slow-a', ms: 2000 }));
    const slowB = track(pool.run({ name: 'slow-b', ms: 2000 }));
    await new Promise((r) => setTimeout(r, 50));
    const quick = track(pool.run({ name: 'quick', ms: 10 }));
    await Promise.all([slowA, slowB, quick]);
    expect(finished[0]).to.equal('quick');
    await new Promise((r) => setTimeout(r, 50));
    expect(pool.size()).to.equal(2);
  });

  it('a heavy task leaves the last worker to light tasks even when it is free', async () => {
    pool = createWorkerPool({ script: SCRIPT, size: 2, timeLimitMs: 20_000, maxHeavy: 2, slowAfterMs: 5000, burst: 0 });
    const finished: string[] = [];
    const track = (p: Promise<Reply>) => p.then((r) => (finished.push(r.name), r));
    const a = track(pool.run({ name: 'heavy-a', ms: 800 }, [], { lane: 'heavy' }));
    const b = track(pool.run({ name: 'heavy-b', ms: 800 }, [], { lane: 'heavy' }));
    await new Promise((r) => setTimeout(r, 50));
    const light = track(pool.run({ name: 'light', ms: 10 }));
    await Promise.all([a, b, light]);
    // heavy-b waited for heavy-a rather than take the worker light then needed.
    expect(finished).to.deep.equal(['light', 'heavy-a', 'heavy-b']);
  });

  it('two light tasks found slow, past maxHeavy: the bigger is taken off its worker and run again after the other (memory bound); a small one is never the one taken off', async () => {
    pool = createWorkerPool({ script: SCRIPT, size: 2, timeLimitMs: 20_000, maxHeavy: 1, slowAfterMs: 200, burst: 1 });
    const run = (name: string, ms: number, weight: number) =>
      pool.run({ name, ms }, [], {
        weight,
        remake: () => ({ request: { name: `${name} (again)`, ms }, transfer: [] }),
      });
    await run('warm', 1, 1);
    const [small, big] = await Promise.all([run('small but slow', 1200, 10), run('big', 1200, 10_000)]);
    expect(small.name).to.equal('small but slow');
    expect(big.name).to.equal('big (again)');
    expect(big.startedAt, 'the big one ran again only once the other was done').to.be.at.least(small.endedAt);
  });

  it('a worker idle for idleMs exits (its memory with it), and the next task starts a fresh one', async () => {
    pool = createWorkerPool({ script: SCRIPT, size: 2, timeLimitMs: 20_000, idleMs: 200 });
    await Promise.all([pool.run({ name: 'a', ms: 10 }), pool.run({ name: 'b', ms: 10 })]);
    expect(pool.size()).to.be.at.least(1);
    await new Promise((r) => setTimeout(r, 600));
    expect(pool.size()).to.equal(0);
    expect((await pool.run({ name: 'c', ms: 10 })).name).to.equal('c');
    // A warm spare may have started beside it (every worker was busy): both go once idle.
    await new Promise((r) => setTimeout(r, 600));
    expect(pool.size()).to.equal(0);
  });

  it('a task needing more heap than the worker may use fails alone: the worker dies, the next task runs', async () => {
    pool = createWorkerPool({
      script: SCRIPT,
      size: 1,
      timeLimitMs: 20_000,
      resourceLimits: { maxOldGenerationSizeMb: 32 },
    });
    expect(await failure(pool.run({ name: 'greedy', ms: 0, holdMb: 256 }))).to.be.instanceOf(WorkerFailed);
    expect((await pool.run({ name: 'modest', ms: 0, holdMb: 4 })).name).to.equal('modest');
  });
});
