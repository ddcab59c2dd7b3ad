import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import {
  CONNECTORS_TABLE,
  connectorsProjector,
  EXPOSURES_TABLE,
  SCHEMAS_TABLE,
} from '../../../projections/connectors/connectors-read-model';
import { connectorAggregate, type ConnectorEvent } from '../../../streams/connectors/connector';
import { connectTestDatabase } from '../../support/database';

/** Projection spec: given connector events, then these rows (and none holds a secret). */
describe('connectors read model', () => {
  let db: Database;
  before(async () => {
    db = await connectTestDatabase(2);
    await connectorsProjector.createTables(db.knex);
  });
  after(() => db?.close());

  const tenantId = randomUUID();
  const connectorId = randomUUID();
  const at = '2026-01-15T12:00:00.000Z';
  let revision = 0n;
  const recorded = (event: ConnectorEvent): RecordedEvent => ({
    id: randomUUID(),
    stream: connectorAggregate.stream(tenantId, connectorId),
    revision: revision++,
    position: { commit: revision, prepare: revision },
    type: event.type,
    data: event.data,
    metadata: { tenantId, actorId: 'u', correlationId: 'c', causationId: 'c', signature: 's' },
    recordedAt: new Date(at),
  });
  const given = async (events: ConnectorEvent[]) =>
    db.knex.transaction(async (trx) => {
      for (const e of events) await connectorsProjector.apply(trx, recorded(e));
    });

  it('builds the connector, its schema and its exposures from events alone', async () => {
    await given([
      {
        type: 'ConnectorRegistered',
        data: {
          connectorId,
          connectorKey: 'wells',
          displayName: 'Wells',
          description: 'd',
          connectorType: 'postgresql',
          config: { host: 'db.example.com', port: 5432 },
          dataClassification: 'internal',
          at,
        },
      },
      { type: 'CredentialSet', data: { secretName: 'connectors/x/r1', credentialRevision: 1, at } },
      { type: 'ProbeSucceeded', data: { credentialRevision: 1, result: { ok: true, at, reasons: [] } } },
      {
        type: 'SchemaDiscovered',
        data: {
          at,
          truncated: false,
          tables: [{ schema: 'src', name: 'wells', columns: [{ name: 'api', type: 'text', nullable: false }] }],
        },
      },
      {
        type: 'ExposureDrafted',
        data: {
          ekey: 'q',
          displayName: 'Q',
          description: '',
          sql: 'select 1',
          sqlHash: 'h1',
          parameters: [],
          maxRows: 10,
          authorId: 'a',
          at,
        },
      },
      { type: 'ExposureSubmitted', data: { ekey: 'q', by: 'a', at } },
      { type: 'ExposureApproved', data: { ekey: 'q', approvedSqlHash: 'h1', by: 'b', at } },
    ]);
    const connector = await db.knex(CONNECTORS_TABLE).where({ connector_id: connectorId }).first();
    expect(connector).to.include({
      tenant_id: tenantId,
      connector_key: 'wells',
      status: 'active',
      has_credential: true,
    });
    expect(connector.read_only_verified_at.toISOString()).to.equal(at);
    expect(JSON.stringify(connector)).not.to.contain('connectors/x/r1');
    expect((await db.knex(SCHEMAS_TABLE).where({ connector_id: connectorId }).first()).tables[0].name).to.equal(
      'wells',
    );
    expect(await db.knex(EXPOSURES_TABLE).where({ connector_id: connectorId }).first()).to.include({
      connector_key: 'wells',
      status: 'approved',
      approved_sql_hash: 'h1',
      approved_by: 'b',
      max_rows: 10,
    });
  });

  it('a failed probe clears the verification; an edit returns the exposure to draft; delete removes every row', async () => {
    await given([
      { type: 'CredentialSet', data: { secretName: 'connectors/x/r2', credentialRevision: 2, at } },
      {
        type: 'ProbeFailed',
        data: { credentialRevision: 2, result: { ok: false, at, reasons: ['can write to table src.wells'] } },
      },
      {
        type: 'ExposureEdited',
        data: {
          ekey: 'q',
          displayName: 'Q',
          description: '',
          sql: 'select 2',
          sqlHash: 'h2',
          parameters: [],
          maxRows: null,
          editorId: 'c',
          at,
        },
      },
    ]);
    expect(await db.knex(CONNECTORS_TABLE).where({ connector_id: connectorId }).first()).to.include({
      status: 'probe_failed',
      read_only_verified_at: null,
    });
    expect(await db.knex(EXPOSURES_TABLE).where({ connector_id: connectorId }).first()).to.include({
      status: 'draft',
      approved_sql_hash: null,
      sql_hash: 'h2',
      last_editor_id: 'c',
    });
    await given([{ type: 'ConnectorDeleted', data: { connectorKey: 'wells', at } }]);
    for (const table of [CONNECTORS_TABLE, SCHEMAS_TABLE, EXPOSURES_TABLE])
      expect(await db.knex(table).where({ connector_id: connectorId })).to.deep.equal([]);
  });
});
