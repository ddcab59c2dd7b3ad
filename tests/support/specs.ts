import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { connectTestDatabase } from './database';
import type { HttpClient } from './http';

/**
 * Projection specs, read like decider specs (Emmett's DeciderSpecification / projection
 * specs): given these events, the read model holds these rows.
 *
 *   await projectionSpec(conversationsProjector)
 *     .given([{ stream, type: 'ConversationCreated', data: {...} }])
 *     .then(async (knex) => expect(await knex('conversations').select('title')).to.deep.equal([...]));
 */
export interface SpecEvent {
  stream: string;
  type: string;
  data: unknown;
  metadata?: Partial<RecordedEvent['metadata']>;
  recordedAt?: Date;
}

export function projectionSpec(projector: Projector) {
  return {
    given(events: SpecEvent[]) {
      return {
        async then(check: (knex: Knex) => Promise<void>): Promise<void> {
          const db = await connectTestDatabase(2);
          try {
            await projector.createTables(db.knex);
            const revisions = new Map<string, bigint>();
            const recorded: RecordedEvent[] = events.map((e, i) => {
              const revision = revisions.get(e.stream) ?? 0n;
              revisions.set(e.stream, revision + 1n);
              return {
                id: randomUUID(),
                stream: e.stream,
                revision,
                position: { commit: 1n, prepare: BigInt(i + 1) },
                type: e.type,
                data: e.data,
                metadata: {
                  tenantId: 'tenant-spec',
                  actorId: 'actor-spec',
                  correlationId: 'c',
                  causationId: 'c',
                  signature: '',
                  ...e.metadata,
                },
                recordedAt: e.recordedAt ?? new Date('2026-03-03T10:00:00Z'),
              };
            });
            const wanted = recorded.filter((e) => !projector.eventTypes || projector.eventTypes.includes(e.type));
            await db.knex.transaction(async (trx) => {
              if (projector.applyBatch) await projector.applyBatch(trx, wanted);
              else for (const event of wanted) await projector.apply(trx, event);
            });
            await check(db.knex);
          } finally {
            await db.close();
          }
        },
      };
    },
  };
}

/**
 * API specs: this request appends these events (found by the request's correlation id, which
 * is its X-Request-Id), so a route's effect on the log is asserted, not only its answer.
 *
 *   await apiSpec(t.api, knex).when('POST', '/conversations', body, headers).thenAppended(['ConversationCreated']);
 */
export function apiSpec(api: HttpClient, knex: Knex) {
  return {
    when(method: string, path: string, body: unknown, headers: Record<string, string>) {
      const requestId = `spec-${randomUUID()}`;
      const sent = api.request(method, path, { body, headers: { ...headers, 'x-request-id': requestId } });
      const appended = async () =>
        knex('events')
          .whereRaw(`metadata->>'correlationId' = ?`, [requestId])
          .orderBy([{ column: 'transaction_id' }, { column: 'position' }])
          .select('type', 'stream_id', 'data');
      return {
        async thenAppended(types: string[], status?: number) {
          const response = await sent;
          if (status !== undefined) expect(response.status, response.text).to.equal(status);
          expect((await appended()).map((e: { type: string }) => e.type)).to.deep.equal(types);
          return { response, events: await appended() };
        },
        async thenNothingAppended(status: number) {
          const response = await sent;
          expect(response.status, response.text).to.equal(status);
          expect(await appended()).to.deep.equal([]);
          return response;
        },
      };
    },
  };
}
