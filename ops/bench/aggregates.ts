import pino from 'pino';
import { randomUUID } from 'node:crypto';
import { createCommandHandler } from '../../src/platform/command-handling/command-handler';
import { createSnapshotStore } from '../../src/platform/command-handling/snapshots';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { appendMessage } from '../../commands/conversations/append-message';
import { createConversation } from '../../commands/conversations/create-conversation';
import { noteDecider, noteStream } from '../../tests/support/toy-context';
import { benchDatabase, type BenchRow } from './support';

/**
 * Bounded aggregates: appending message 10,000 of one conversation should cost what message
 * 10 costs, because the decision folds from the latest snapshot, not from revision 0. Times
 * are the mean of 50 appends around each point; "events read" counts what the store returned
 * to the command handler for one decision.
 */
export async function run(): Promise<BenchRow[]> {
  const { db, store, close } = await benchDatabase();
  const tenantId = randomUUID();
  const conversationId = randomUUID();
  let eventsRead = 0;
  const counting = {
    ...store,
    async readStream(stream: string, options?: Parameters<typeof store.readStream>[1]): Promise<RecordedEvent[]> {
      const events = await store.readStream(stream, options);
      eventsRead += events.length;
      return events;
    },
  };
  // A handler per append: the first decision after a restart, which folds from the snapshot
  // (a running handler decides from the state it remembers and reads nothing).
  const snapshots = createSnapshotStore(db.knex);
  const deps = {
    get handle() {
      return createCommandHandler({
        store: counting,
        projections: { waitFor: async () => true },
        logger: pino({ level: 'silent' }),
        snapshots,
      });
    },
    knex: db.knex,
  };
  const rows: BenchRow[] = [];
  try {
    await createConversation(deps, tenantId, {
      type: 'CreateConversation',
      conversationId,
      userId: 'bench-user',
      agentId: 'bench',
      title: null,
      conversationType: null,
      projectId: null,
      metadata: null,
    });
    const append = (i: number) =>
      appendMessage(
        deps,
        { tenantId, conversationId, callerId: 'bench-user' },
        {
          role: i % 2 ? 'assistant' : 'user',
          content: `Message ${i}: production for lease 12345 in March was 1,250 bbl oil and 3,400 mcf gas.`,
        },
      );
    const measure = async (from: number, count: number) => {
      eventsRead = 0;
      const started = process.hrtime.bigint();
      for (let i = from; i < from + count; i++) await append(i);
      const ms = Number(process.hrtime.bigint() - started) / 1e6 / count;
      return { ms, read: eventsRead / count };
    };
    for (let i = 1; i < 10; i++) await append(i);
    const early = await measure(10, 50);
    for (let i = 60; i < 10_000; i++) await append(i);
    const late = await measure(10_000, 50);
    rows.push({ name: 'append message ~10: ms per append', value: early.ms, unit: 'ms' });
    rows.push({ name: 'append message ~10,000: ms per append', value: late.ms, unit: 'ms' });
    rows.push({ name: 'message 10,000 / message 10: time', value: late.ms / early.ms, unit: 'ratio', target: '≤ 1.5' });
    rows.push({ name: 'events read per decision at ~10', value: early.read, unit: 'events' });
    rows.push({
      name: 'events read per decision at ~10,000',
      value: late.read,
      unit: 'events',
      target: '≤ 100 (snapshot every 100)',
    });
    rows.push({
      name: 'events read at ~10,000 / at ~10 (fold memory)',
      value: late.read / early.read,
      unit: 'ratio',
      target: '≤ 1.5',
    });
  } finally {
    await close();
  }
  rows.push({
    name: "handler's own CPU per command (store answering at once)",
    value: await handlerOwnCost(),
    unit: 'µs',
  });
  return rows;
}

/**
 * What the command handler itself costs per decision, without a database: a store that keeps
 * heads in a map and answers at once, 100,000 renames of 200 notes decided from remembered
 * states (the common path of a command). The median of three rounds.
 */
async function handlerOwnCost(): Promise<number> {
  const heads = new Map<string, bigint>();
  let position = 0n;
  const store = {
    kind: 'postgres' as const,
    knownRevision: (stream: string) => heads.get(stream),
    readStream: async () => [],
    async append(stream: string, events: unknown[]) {
      const revision = (heads.get(stream) ?? -1n) + BigInt(events.length);
      heads.set(stream, revision);
      position++;
      return { nextRevision: revision, position: { commit: position, prepare: position } };
    },
  };
  const handle = createCommandHandler({
    store: store as never,
    projections: { waitFor: async () => true },
    logger: pino({ level: 'silent' }),
  });
  const context = { tenantId: 't', actorId: 'a' };
  const ids = Array.from({ length: 200 }, (_, i) => `note-${i}`);
  for (const id of ids)
    await handle(noteDecider, noteStream('t', id), { type: 'CreateNote', noteId: id, title: 'x' }, context);
  const rounds: number[] = [];
  for (let round = 0; round < 3; round++) {
    const n = 100_000;
    const started = process.cpuUsage();
    for (let i = 0; i < n; i++)
      await handle(noteDecider, noteStream('t', ids[i % ids.length]), { type: 'RenameNote', title: `t${i}` }, context);
    const used = process.cpuUsage(started);
    rounds.push((used.user + used.system) / n);
  }
  return rounds.sort((a, b) => a - b)[1];
}
