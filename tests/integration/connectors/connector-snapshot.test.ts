import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import sinon from 'sinon';
import { loadConnector } from '../../../commands/connectors/connector-refs';
import { decideRecordSchema, type RecordSchema } from '../../../commands/connectors/discover-schema';
import type { Decider } from '../../../src/platform/command-handling/decider';
import type { EventStore, ReadStreamOptions } from '../../../src/platform/eventstore/types';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../../streams/connectors/connector';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * Connector commands and exposure runs load the connector through `loadConnector`: from the
 * snapshot the command handler keeps (every 50 events) plus the tail, never the whole history
 * of schema discoveries.
 */
describe('loading a connector with a long history', function () {
  this.timeout(180_000);
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());
  afterEach(() => sinon.restore());

  it('a connector with 500 schema discoveries loads from its snapshot, reading only the events after it', async () => {
    const tenantId = randomUUID();
    const connectorId = randomUUID();
    const context = { tenantId, actorId: randomUUID() };
    const stream = connectorAggregate.stream(tenantId, connectorId);
    const metadata = { ...context, correlationId: randomUUID(), causationId: randomUUID() };
    const at = new Date().toISOString();
    await t.deps.store.append(stream, [
      {
        type: 'ConnectorRegistered',
        data: {
          connectorId,
          connectorKey: `wells_${connectorId.slice(0, 8)}`,
          displayName: 'Wells',
          description: '',
          connectorType: 'postgresql',
          config: { host: '127.0.0.1', port: 5432, database: 'src' },
          dataClassification: 'internal',
          at,
        },
        metadata,
      },
      { type: 'CredentialSet', data: { secretName: 'connectors/test', credentialRevision: 1, at }, metadata },
      { type: 'ProbeSucceeded', data: { credentialRevision: 1, result: { ok: true, at, reasons: [] } }, metadata },
    ]);
    const record: Decider<RecordSchema, ConnectorState, ConnectorEvent> = {
      ...connectorAggregate,
      decide: decideRecordSchema,
    };
    for (let i = 0; i < 500; i++) {
      const tables = [{ schema: 'src', name: `wells_${i}`, columns: [{ name: 'api', type: 'text', nullable: false }] }];
      await t.deps.handle(record, stream, { type: 'RecordSchema', tables, truncated: false }, context);
    }

    const read = sinon.spy((name: string, options?: ReadStreamOptions) => t.deps.store.readStream(name, options));
    const store: EventStore = Object.assign(Object.create(t.deps.store), { readStream: read });
    const loaded = await loadConnector({ store, knex: t.deps.knex }, tenantId, connectorId);

    const eventsRead = (await Promise.all(read.returnValues)).reduce((sum, events) => sum + events.length, 0);
    expect(eventsRead, 'events read after the snapshot').to.be.below(50);
    const history = await t.deps.store.readStream(stream);
    expect(history).to.have.length(503);
    const folded = history
      .map(connectorAggregate.read)
      .reduce(connectorAggregate.evolve, connectorAggregate.initialState);
    expect(loaded).to.deep.equal(folded);
  });
});
