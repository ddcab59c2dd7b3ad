import { randomUUID } from 'node:crypto';
import sinon from 'sinon';
import {
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type EventData,
  type ReadAllOptions,
  type ReadStreamOptions,
} from '@eventstore/db-client';
import type { Position } from '../../src/platform/eventstore/types';

export interface FakeEvent {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  isJson: true;
  created: Date;
  position: Position;
}

export function iterable<T>(items: T[], failure?: Error): AsyncIterable<T> {
  return {
    async *[Symbol.asyncIterator]() {
      if (failure) throw failure;
      yield* items;
    },
  };
}

/**
 * An in-memory stand-in for EventStoreDBClient whose methods are sinon stubs. It behaves like
 * the server where the adapter depends on it: a missing stream fails the read with
 * StreamNotFoundError, a wrong expected revision rejects with WrongExpectedVersionError, and
 * $all reads include system events and the event at `fromPosition`. Positions start beyond
 * 2^53 so a lossy number conversion would show; an appended event sits at (log position,
 * log position) in $all, as it does on the server.
 */
export function createFakeClient() {
  const log: FakeEvent[] = [];
  let nextCommit = 9_007_199_254_740_993n;
  const streamEvents = (stream: string) => log.filter((e) => e.streamId === stream);
  const revisionOf = (stream: string) => streamEvents(stream).at(-1)?.revision ?? ('no_stream' as const);
  const resolved = (e: FakeEvent) => ({ event: e, commitPosition: e.position.commit });

  /** Writes straight to the log, as another process or a system projection would. */
  function write(
    stream: string,
    type: string,
    data: unknown = {},
    metadata?: unknown,
    id: string = randomUUID(),
  ): FakeEvent {
    const current = revisionOf(stream);
    const event: FakeEvent = {
      streamId: stream,
      id,
      revision: current === 'no_stream' ? 0n : current + 1n,
      type,
      data: JSON.parse(JSON.stringify(data)),
      metadata: metadata === undefined ? undefined : JSON.parse(JSON.stringify(metadata)),
      isJson: true,
      created: new Date(),
      position: { commit: nextCommit, prepare: nextCommit },
    };
    nextCommit += 100n;
    log.push(event);
    return event;
  }

  async function appendImpl(
    stream: string,
    events: EventData[],
    options?: { expectedRevision?: AppendExpectedRevision },
  ) {
    const current = revisionOf(stream);
    const expected = options?.expectedRevision ?? 'any';
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === 'no_stream') ||
      (expected === 'stream_exists' && current !== 'no_stream') ||
      expected === current;
    if (!ok) throw new WrongExpectedVersionError(undefined, { streamName: stream, expected, current });
    const written = events.map((e) => write(stream, e.type, e.data, e.metadata, e.id));
    // As the server does: commit of the last event, prepare of the transaction's start.
    const position = { commit: written.at(-1)!.position.commit, prepare: written[0].position.prepare };
    return { success: true, nextExpectedRevision: written.at(-1)!.revision, position };
  }

  const client = {
    appendToStream: sinon.stub().callsFake(appendImpl),
    readStream: sinon.stub().callsFake((stream: string, options: ReadStreamOptions = {}) => {
      let events = streamEvents(stream);
      if (events.length === 0) return iterable([], new StreamNotFoundError(undefined, stream));
      const from = options.fromRevision;
      if (options.direction === 'backwards')
        events = events.reverse().filter((e) => typeof from !== 'bigint' || e.revision <= from);
      else events = events.filter((e) => typeof from !== 'bigint' || e.revision >= from);
      return iterable(events.slice(0, Number(options.maxCount ?? Infinity)).map(resolved));
    }),
    readAll: sinon.stub().callsFake((options: ReadAllOptions = {}) => {
      const from = typeof options.fromPosition === 'object' ? options.fromPosition.commit : undefined;
      let events = options.direction === 'backwards' ? [...log].reverse() : [...log];
      if (from !== undefined) {
        events = events.filter((e) =>
          options.direction === 'backwards' ? e.position.commit <= from : e.position.commit >= from,
        );
      }
      return iterable(events.slice(0, Number(options.maxCount ?? Infinity)).map(resolved));
    }),
    subscribeToAll: sinon.stub(),
    dispose: sinon.stub().resolves(),
  };
  return { client, log, write, appendImpl };
}
