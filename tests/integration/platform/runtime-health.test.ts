import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../../src/platform/eventstore/types';
import { eventually } from '../../support/eventually';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { noteStream, toyContext } from '../../support/toy-context';

interface Health {
  status: string;
  lanes?: Array<{ name: string; kind: string; lag_events: number; lag_seconds: number }>;
  degraded_lanes?: Array<{ name: string; kind: string; reason: string }>;
  leaderless?: string[];
}

/** /health names the lanes that miss work: behind by more than LANE_LAG_DEGRADED_S, or with no leader at all. */
describe('runtime health', () => {
  let t: TestPlatform;
  let release: () => void = () => undefined;
  const stuck = new Promise<void>((resolve) => (release = resolve));
  const holdTitle = `held-${randomUUID()}`;

  before(async () => {
    const toy = toyContext();
    const [notes] = toy.projectors!;
    // A projector that hangs on one event until the test lets it go: its lane falls behind.
    toy.projectors = [
      {
        ...notes,
        applyBatch: undefined,
        apply: async (trx: Knex.Transaction, event: RecordedEvent) => {
          if ((event.data as { title?: string }).title === holdTitle) await stuck;
          await notes.apply(trx, event);
        },
      },
    ];
    t = await startTestPlatform({ contexts: [toy], env: { LANE_LAG_DEGRADED_S: '1' } });
  });
  after(() => t.close());

  const health = async (): Promise<Health> => (await fetch(`${t.publicUrl}/health`)).json() as Promise<Health>;

  it('a lane behind by more than the bound makes /health degraded and is named with its lag; caught up, it is ok again', async () => {
    await eventually(async () => (await health()).status === 'ok', 10_000);
    const id = randomUUID();
    const metadata = { tenantId: 't', actorId: 'a', correlationId: id, causationId: id };
    await t.deps.store.append(noteStream('t', id), [
      { type: 'NoteCreated', data: { noteId: id, title: holdTitle }, metadata },
    ]);
    const degraded = await eventually(async () => {
      const now = await health();
      return now.status === 'degraded' ? now : null;
    }, 10_000);
    expect(degraded.degraded_lanes).to.deep.equal([{ name: 'toy_notes', kind: 'projection', reason: 'behind' }]);
    const lane = degraded.lanes!.find((l) => l.name === 'toy_notes')!;
    expect(lane.lag_events).to.equal(1);
    expect(lane.lag_seconds).to.be.greaterThan(1);
    release();
    await eventually(async () => (await health()).status === 'ok', 10_000);
  });

  it('a leadership nobody holds makes /health degraded and is named', async () => {
    await t.deps.projections.stop();
    const now = await eventually(async () => {
      const answer = await health();
      return answer.leaderless?.includes('projections') ? answer : null;
    }, 10_000);
    expect(now.status).to.equal('degraded');
    expect(now.leaderless).to.deep.equal(['projections']);
  });
});
