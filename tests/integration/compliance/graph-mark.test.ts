import { expect } from 'chai';
import { graphMark } from '../../../queries/compliance/graph-changes';
import { propertyGraphProjector } from '../../../projections/graph/property-graph';
import type { Database } from '../../../src/platform/infra/database';
import { createCheckpointsTable, saveCheckpoint } from '../../../src/platform/projection-runner/checkpoints';
import { INLINE_STATUS } from '../../../src/platform/projection-runner/runner';
import { connectTestDatabase } from '../../support/database';

/**
 * The position a run judges up to. Inline (PostgreSQL), the graph's rows are written with
 * their events, so the store's horizon is the mark; as a lane (EventStoreDB), the rows trail
 * the log, so a checkpoint behind the horizon is the mark, or a change between the two would
 * be taken as judged and never re-evaluated.
 */
describe('graphMark: the position a compliance run judges up to', () => {
  let db: Database;
  const head = { commit: 500n, prepare: 500n };
  const store = { headPosition: async () => head };

  before(async () => {
    db = await connectTestDatabase();
    if (!(await db.knex.schema.hasTable('projection_checkpoints'))) await createCheckpointsTable(db.knex);
    if (!(await db.knex.schema.hasTable('graph_vertices'))) await propertyGraphProjector.createTables(db.knex);
  });
  after(() => db?.close());

  const markWith = async (status: string, position: { commit: bigint; prepare: bigint }) => {
    await saveCheckpoint(db.knex, propertyGraphProjector.name, {
      version: propertyGraphProjector.version,
      position,
      reset: true,
      status,
    });
    return (await graphMark(db.knex, store, 'tenant-mark')).position;
  };

  it('an inline graph projector: the store horizon', async () => {
    expect(await markWith(INLINE_STATUS, { commit: 10n, prepare: 10n })).to.equal('500/500');
  });

  it('a graph lane behind the log: its checkpoint', async () => {
    expect(await markWith('running', { commit: 120n, prepare: 120n })).to.equal('120/120');
  });

  it('a graph lane caught up: the horizon', async () => {
    expect(await markWith('running', { commit: 500n, prepare: 500n })).to.equal('500/500');
  });
});
