import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { createCommandHandler } from '../../../src/platform/command-handling/command-handler';
import { derivedUuid } from '../../../src/platform/command-handling/idempotency';
import { currentScope } from '../../../src/platform/http/request-scope';
import type { PlatformDeps } from '../../../src/platform/context-module';
import type { EventStore, RecordedEvent } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import { readCheckpoint } from '../../../src/platform/projection-runner/checkpoints';
import {
  degradedProjectors,
  openDeadLetters,
  recordDeadLetter,
} from '../../../src/platform/projection-runner/dead-letters';
import { createAdvisoryLeaderLock } from '../../../src/platform/projection-runner/leader-lock';
import { ProjectionRunner } from '../../../src/platform/projection-runner/runner';
import { WakeUps } from '../../../src/platform/projection-runner/wake-ups';
import type { ReactionCommand, Reactor } from '../../../src/platform/reactors/reactor';
import { reactorCheckpoint, ReactorRunner } from '../../../src/platform/reactors/runner';
import { createTestEventStore } from '../../support/event-store';
import { eventually } from '../../support/eventually';
import { noteDecider, notesProjector, noteStream } from '../../support/toy-context';

/** Reactor lanes, and the projection runner's failure accounting. */
describe('reactor runner', () => {
  let db: Database;
  let store: EventStore;
  let cleanup: () => Promise<void>;
  const tenantId = 'tenant-r';
  const meta = { tenantId, actorId: 'tester', correlationId: 'c', causationId: 'c' };

  beforeEach(async () => {
    ({ db, store, cleanup } = await createTestEventStore());
  });
  afterEach(() => cleanup());

  function depsOf(projections: ProjectionRunner): PlatformDeps {
    const handle = createCommandHandler({
      store,
      projections,
      logger: pino({ level: 'silent' }),
      projectionWaitMs: 2000,
    });
    return { store, knex: db.knex, handle, projections } as unknown as PlatformDeps;
  }

  /** The notes' projection runner, started: the echo reactions' commands wait for it. */
  async function startedProjections(wakeUps?: WakeUps): Promise<ProjectionRunner> {
    const projections = new ProjectionRunner({
      knex: db.knex,
      store,
      projectors: [notesProjector()],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 50,
      wakeUps,
    });
    await projections.start();
    return projections;
  }

  /**
   * Reacts to every new note by creating its "echo" note, whose id derives from the event; the
   * facts count the attempts, and an injected failure comes after the write committed.
   */
  function echoReactor(
    fail: (event: RecordedEvent, attempt: number) => boolean,
  ): Reactor<number> & { attempts: Map<string, number> } {
    const attempts = new Map<string, number>();
    const isEcho = (event: RecordedEvent) => (event.data as { title: string }).title.startsWith('echo');
    return {
      name: 'toy.echo',
      handles: ['NoteCreated'],
      attempts,
      async facts(event) {
        if (isEcho(event)) return 0;
        const attempt = (attempts.get(event.id) ?? 0) + 1;
        attempts.set(event.id, attempt);
        return attempt;
      },
      react(event, attempt): ReactionCommand[] {
        if (isEcho(event)) return [];
        const data = event.data as { noteId: string; title: string };
        const echoId = derivedUuid('toy.echo', event.id);
        const echo: ReactionCommand = {
          step: 'echo',
          writes: [
            {
              decider: noteDecider,
              stream: noteStream(tenantId, echoId),
              command: { type: 'CreateNote', noteId: echoId, title: `echo ${data.title}` },
            },
          ],
        };
        // Fails after its command committed: the replay must append nothing twice.
        if (!fail(event, attempt)) return [echo];
        const failure = () => Promise.reject(new Error('failure injected after the command'));
        return [echo, { step: 'fail', operation: { name: 'toy.fail', input: null, send: failure } }];
      },
    };
  }

  /** Each event of a batch as `react` takes it, on a first attempt. */
  const echoAll = (echo: Reactor<number>, events: RecordedEvent[]) =>
    events.flatMap((cause) => echo.react(cause, 1).map((command) => ({ cause, command })));

  async function note(title: string) {
    const id = randomUUID();
    await store.append(noteStream(tenantId, id), [
      { type: 'NoteCreated', data: { noteId: id, title }, metadata: meta },
    ]);
    return id;
  }

  async function echoes(): Promise<string[]> {
    const events = await store.readAll({ limit: 1000 });
    return events
      .filter((e) => e.type === 'NoteCreated' && String((e.data as { title: string }).title).startsWith('echo'))
      .map((e) => (e.data as { title: string }).title)
      .sort();
  }

  it('given a reactor lane that would poll only once a minute, when a note is appended, then the wake-up subscription it shares with the projections wakes it at once', async () => {
    const wakeUps = new WakeUps({ store, logger: pino({ level: 'silent' }), tailEvents: 2000 });
    const projections = await startedProjections(wakeUps);
    const deps = depsOf(projections);
    const runner = new ReactorRunner({
      knex: db.knex,
      store,
      reactors: [echoReactor(() => false)],
      deps: () => deps,
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url, 9_999_006),
      idleMs: 60_000,
      wakeUps,
    });
    await runner.start();
    // A reactor lane reports the shared subscription; once it is up, and past the first pass a
    // lane makes as it starts, only a wake-up moves the lane.
    await eventually(async () => (await runner.lanesReport())[0].subscribed === true, 5_000);
    await new Promise((r) => setTimeout(r, 200));
    await note('woken');
    const deadline = Date.now() + 5_000;
    while ((await echoes()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(await echoes()).to.deep.equal(['echo woken']);
    await runner.stop();
    await projections.stop();
  });

  it('reacts once to each new event, from the head it first saw; a replay after a failure appends nothing twice', async () => {
    await note('before the reactor');
    const projections = await startedProjections();
    const reactor = echoReactor((_e, attempt) => attempt < 3);
    const deps = depsOf(projections);
    const runner = new ReactorRunner({
      knex: db.knex,
      store,
      reactors: [reactor],
      deps: () => deps,
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url, 9_999_001),
      idleMs: 50,
      retryBaseMs: 5,
    });
    await runner.start();
    await note('a');
    await note('b');
    expect(await runner.waitFor(await store.headPosition(), 10_000, ['NoteCreated'])).to.equal(true);
    expect(await echoes()).to.deep.equal(['echo a', 'echo b']);
    expect([...reactor.attempts.values()]).to.deep.equal([3, 3]);
    const checkpoint = await readCheckpoint(db.knex, reactorCheckpoint('toy.echo'));
    expect(checkpoint?.status).to.equal('running');
    await runner.stop();
    await projections.stop();
  });

  it('a reaction that keeps failing goes to the dead letters (health names it); retry after a fix reacts once more without duplicating', async () => {
    const projections = await startedProjections();
    let broken = true;
    const reactor = echoReactor((event) => broken && (event.data as { title: string }).title === 'poison');
    const deps = depsOf(projections);
    const runner = new ReactorRunner({
      knex: db.knex,
      store,
      reactors: [reactor],
      deps: () => deps,
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url, 9_999_002),
      idleMs: 50,
      retryBaseMs: 5,
      deadLetterAfter: 3,
    });
    await runner.start();
    await note('poison');
    await note('fine');
    expect(await runner.waitFor(await store.headPosition(), 10_000, ['NoteCreated'])).to.equal(true);
    const letters = await openDeadLetters(db.knex, reactorCheckpoint('toy.echo'));
    expect(letters.map((l) => [l.type, l.attempts])).to.deep.equal([['NoteCreated', 3]]);
    expect(await degradedProjectors(db.knex)).to.deep.equal([reactorCheckpoint('toy.echo')]);
    broken = false;
    expect(await runner.retryDeadLetters('toy.echo')).to.deep.equal({ resolved: 1, remaining: 0 });
    expect(await echoes()).to.deep.equal(['echo fine', 'echo poison']);
    expect(await degradedProjectors(db.knex)).to.deep.equal([]);
    await runner.stop();
    await projections.stop();
  });

  it('given a batch whose third event keeps failing, then the checkpoint stands past the two before it, and a fix reacts to the rest once', async () => {
    const projections = await startedProjections();
    let broken = true;
    const reactor = echoReactor((event) => broken && (event.data as { title: string }).title === 'poison');
    const deps = depsOf(projections);
    const options = {
      knex: db.knex,
      store,
      reactors: [reactor],
      deps: () => deps,
      logger: pino({ level: 'silent' }),
      idleMs: 50,
      retryBaseMs: 5,
      deadLetterAfter: 100,
    };
    const first = new ReactorRunner({ ...options, leaderLock: createAdvisoryLeaderLock(db.url, 9_999_003) });
    await first.start();
    await first.stop();
    // Appended while no runner reacts: the next one reads them as one batch.
    await note('a');
    await note('b');
    await note('poison');
    await note('c');
    const [, b] = (await store.readAll({ limit: 1000 })).filter((e) => e.type === 'NoteCreated');
    const runner = new ReactorRunner({ ...options, leaderLock: createAdvisoryLeaderLock(db.url, 9_999_003) });
    await runner.start();
    for (
      let i = 0;
      i < 200 &&
      (reactor.attempts.get(
        (await store.readAll({ limit: 1000 })).find((e) => (e.data as { title: string }).title === 'poison')!.id,
      ) ?? 0) < 3;
      i++
    )
      await new Promise((r) => setTimeout(r, 20));
    const stuck = await readCheckpoint(db.knex, reactorCheckpoint('toy.echo'));
    expect(stuck?.position).to.deep.equal(b.position);
    expect(await echoes()).to.deep.equal(['echo a', 'echo b', 'echo poison']);
    broken = false;
    expect(await runner.waitFor(await store.headPosition(), 10_000, ['NoteCreated'])).to.equal(true);
    expect(await echoes()).to.deep.equal(['echo a', 'echo b', 'echo c', 'echo poison']);
    await runner.stop();
    await projections.stop();
  });

  it('given a reactor that takes batches, then a batch goes to it whole; when a batch fails, then the lane reacts one event at a time', async () => {
    const projections = await startedProjections();
    const echo = echoReactor(() => false);
    const batches: number[] = [];
    let batchFails = false;
    const reactor: Reactor<number> = {
      ...echo,
      reactBatch(events) {
        // The echoes are notes too: a batch of them follows each batch of notes.
        const notes = events.filter((e) => !(e.data as { title: string }).title.startsWith('echo'));
        if (notes.length === 0) return [];
        batches.push(notes.length);
        if (batchFails) throw new Error('batch failure injected');
        return echoAll(echo, events);
      },
    };
    const deps = depsOf(projections);
    const options = {
      knex: db.knex,
      store,
      reactors: [reactor],
      deps: () => deps,
      logger: pino({ level: 'silent' }),
      idleMs: 50,
      retryBaseMs: 5,
    };
    const run = async (titles: string[]) => {
      const first = new ReactorRunner({ ...options, leaderLock: createAdvisoryLeaderLock(db.url, 9_999_004) });
      await first.start();
      await first.stop();
      for (const title of titles) await note(title);
      const runner = new ReactorRunner({ ...options, leaderLock: createAdvisoryLeaderLock(db.url, 9_999_004) });
      await runner.start();
      expect(await runner.waitFor(await store.headPosition(), 10_000, ['NoteCreated'])).to.equal(true);
      await runner.stop();
    };
    await run(['a', 'b', 'c']);
    expect(batches).to.deep.equal([3]);
    expect(await echoes()).to.deep.equal(['echo a', 'echo b', 'echo c']);
    batchFails = true;
    await run(['d', 'e']);
    // The failed batch, then one event on its own (d), then batches again while they keep failing.
    expect(batches.slice(0, 2)).to.deep.equal([3, 2]);
    expect(await echoes()).to.deep.equal(['echo a', 'echo b', 'echo c', 'echo d', 'echo e']);
    await projections.stop();
  });

  it("a reaction batch's scope derives from its first event, not from how many events the batch holds (two leaders derive the same ids)", async () => {
    const keys: string[] = [];
    const reactor: Reactor = {
      name: 'toy.scoped',
      handles: ['NoteCreated'],
      react: () => [],
      reactBatch(events) {
        keys.push(`${currentScope()?.idempotencyKey}|${events[0].id}`);
        return [];
      },
    };
    const options = {
      knex: db.knex,
      store,
      reactors: [reactor],
      deps: () => ({}) as PlatformDeps,
      logger: pino({ level: 'silent' }),
      idleMs: 50,
    };
    const first = new ReactorRunner({ ...options, leaderLock: createAdvisoryLeaderLock(db.url, 9_999_006) });
    await first.start();
    await first.stop();
    for (const title of ['a', 'b', 'c']) await note(title);
    const runner = new ReactorRunner({ ...options, leaderLock: createAdvisoryLeaderLock(db.url, 9_999_006) });
    await runner.start();
    expect(await runner.waitFor(await store.headPosition(), 10_000, ['NoteCreated'])).to.equal(true);
    await runner.stop();
    expect(keys).to.have.length(1);
    const [key, firstId] = keys[0].split('|');
    expect(key).to.equal(`reaction:toy.scoped:${firstId}`);
  });

  it('given a paced reactor, when events are appended, then it waits for its pace or a waiter, and takes them as one batch', async () => {
    const projections = await startedProjections();
    const echo = echoReactor(() => false);
    const batches: number[] = [];
    const reactor: Reactor<number> = {
      ...echo,
      paceMs: () => 5_000,
      reactBatch(events) {
        const notes = events.filter((e) => !(e.data as { title: string }).title.startsWith('echo'));
        if (notes.length > 0) batches.push(notes.length);
        return echoAll(echo, events);
      },
    };
    const deps = depsOf(projections);
    const runner = new ReactorRunner({
      knex: db.knex,
      store,
      reactors: [reactor],
      deps: () => deps,
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url, 9_999_005),
      idleMs: 50,
      retryBaseMs: 5,
    });
    await runner.start();
    // Past the first pass a lane makes as it starts: from here on it rests for its pace.
    await new Promise((r) => setTimeout(r, 200));
    for (const title of ['a', 'b', 'c']) await note(title);
    await new Promise((r) => setTimeout(r, 300));
    expect(batches, 'the wake-up subscription does not wake a paced lane').to.deep.equal([]);
    expect(await runner.waitFor(await store.headPosition(), 10_000, ['NoteCreated'])).to.equal(true);
    expect(batches).to.deep.equal([3]);
    expect(await echoes()).to.deep.equal(['echo a', 'echo b', 'echo c']);
    await runner.stop();
    await projections.stop();
  });

  it('given a reactor that replaces another (renamed, or split between contexts), then it starts where the old lane stood, neither at the head nor from the start', async () => {
    const projections = await startedProjections();
    const deps = depsOf(projections);
    const options = {
      knex: db.knex,
      store,
      deps: () => deps,
      logger: pino({ level: 'silent' }),
      idleMs: 50,
    };
    await note('before the old lane');
    const old = new ReactorRunner({
      ...options,
      reactors: [{ name: 'toy.old', handles: ['NoteCreated'], react: () => [] }],
      leaderLock: createAdvisoryLeaderLock(db.url, 9_999_007),
    });
    await old.start();
    await old.stop();
    // Appended while no lane ran: the old lane had not reached it.
    await note('missed');
    const renamed = { ...echoReactor(() => false), name: 'toy.renamed', replaces: ['toy.old'] };
    const runner = new ReactorRunner({
      ...options,
      reactors: [renamed],
      leaderLock: createAdvisoryLeaderLock(db.url, 9_999_007),
    });
    await runner.start();
    expect(await runner.waitFor(await store.headPosition(), 10_000, ['NoteCreated'])).to.equal(true);
    expect(await echoes()).to.deep.equal(['echo missed']);
    // The old lane had parked an event: the reactor that replaces it takes its retry, so the
    // letter does not stay open (and /health degraded) for want of a reactor of its name.
    const [parked] = await store.readAll({ limit: 1, filter: { eventTypes: ['NoteCreated'] } });
    await recordDeadLetter(db.knex, reactorCheckpoint('toy.old'), parked, new Error('old failure'), 5);
    expect(await runner.retryDeadLetters('toy.old')).to.deep.equal({ resolved: 1, remaining: 0 });
    expect(await echoes()).to.deep.equal(['echo before the old lane', 'echo missed']);
    expect(await degradedProjectors(db.knex)).to.deep.equal([]);
    await runner.stop();
    await projections.stop();
  });

  it('projection runner: failures to read the log retry with backoff and never dead-letter a good event', async () => {
    const id = await note('x');
    let outages = 6;
    const flaky: EventStore = Object.create(store);
    flaky.readAll = async (options) => {
      if (outages-- > 0) throw new Error('connection terminated unexpectedly');
      return store.readAll(options);
    };
    const r = new ProjectionRunner({
      knex: db.knex,
      store: flaky,
      projectors: [notesProjector()],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 50,
      retryBaseMs: 5,
      deadLetterAfter: 2,
    });
    await r.start();
    expect(await r.waitFor(await store.headPosition(), 10_000)).to.equal(true);
    expect(await db.knex('toy_notes').where({ id }).first()).to.include({ id });
    expect(await openDeadLetters(db.knex, 'toy_notes')).to.deep.equal([]);
    await r.stop();
  });
});
