import type { Knex } from 'knex';
import type { Projector } from '../../src/platform/projection-runner/projector';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { connectorAggregate, readConnectorEvent } from '../../streams/connectors/connector';

/**
 * Connectors, their discovered schema and their exposures, one row each, per tenant. The
 * secret never reaches these tables: `has_credential` is all a reader learns.
 */
export const CONNECTORS_TABLE = 'connectors_connectors';
export const SCHEMAS_TABLE = 'connectors_schemas';
export const EXPOSURES_TABLE = 'connectors_exposures';

const STREAM_PREFIX = 'connectors.connector-';
/** Connector ids are uuids: the last 36 characters of the stream name. */
const connectorIdOf = (event: RecordedEvent) => event.stream.slice(-36);

export const connectorsProjector: Projector = {
  name: 'connectors_read_model',
  consistency: 'inline',
  version: 2,
  tables: [EXPOSURES_TABLE, SCHEMAS_TABLE, CONNECTORS_TABLE],
  eventTypes: connectorAggregate.eventTypes,
  async createTables(knex) {
    await knex.schema.createTable(CONNECTORS_TABLE, (t) => {
      t.text('connector_id').primary();
      t.text('tenant_id').notNullable();
      t.text('connector_key').notNullable();
      t.text('display_name').notNullable();
      t.text('description').notNullable();
      t.text('connector_type').notNullable();
      t.jsonb('config').notNullable();
      t.text('status').notNullable();
      t.boolean('has_credential').notNullable();
      t.timestamp('read_only_verified_at', { useTz: true });
      t.jsonb('last_probe');
      t.text('data_classification').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.unique(['tenant_id', 'connector_key']);
    });
    await knex.schema.createTable(SCHEMAS_TABLE, (t) => {
      t.text('connector_id').primary();
      t.text('tenant_id').notNullable();
      t.jsonb('tables').notNullable();
      t.boolean('truncated').notNullable();
      t.timestamp('discovered_at', { useTz: true }).notNullable();
    });
    await knex.schema.createTable(EXPOSURES_TABLE, (t) => {
      t.text('connector_id').notNullable();
      t.text('tenant_id').notNullable();
      t.text('connector_key').notNullable();
      t.text('ekey').notNullable();
      t.text('display_name').notNullable();
      t.text('description').notNullable();
      t.text('sql').notNullable();
      t.text('sql_hash').notNullable();
      t.jsonb('parameters').notNullable();
      t.integer('max_rows');
      t.text('status').notNullable();
      t.text('approved_sql_hash');
      // The SQL as last approved, kept through later edits so a reviewer sees what changed since.
      t.text('approved_sql');
      t.text('author_id').notNullable();
      t.text('last_editor_id').notNullable();
      t.text('submitted_by');
      t.text('approved_by');
      t.timestamp('approved_at', { useTz: true });
      t.text('rejected_by');
      t.text('rejection_reason');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['connector_id', 'ekey']);
      t.index(['tenant_id', 'status']);
    });
  },
  async apply(trx, event) {
    if (!event.stream.startsWith(STREAM_PREFIX)) return;
    const tenantId = event.metadata.tenantId;
    const connectorId = connectorIdOf(event);
    const parsed = readConnectorEvent(event);
    const connector = trx(CONNECTORS_TABLE).where({ connector_id: connectorId });
    const exposure = (ekey: string) => trx(EXPOSURES_TABLE).where({ connector_id: connectorId, ekey });
    switch (parsed.type) {
      case 'ConnectorRegistered': {
        const d = parsed.data;
        await trx(CONNECTORS_TABLE).insert({
          connector_id: connectorId,
          tenant_id: tenantId,
          connector_key: d.connectorKey,
          display_name: d.displayName,
          description: d.description,
          connector_type: d.connectorType,
          config: JSON.stringify(d.config),
          status: 'unconfigured',
          has_credential: false,
          read_only_verified_at: null,
          last_probe: null,
          data_classification: d.dataClassification,
          created_at: d.at,
          updated_at: d.at,
        });
        break;
      }
      case 'ConnectorDetailsChanged': {
        const d = parsed.data;
        const patch: Record<string, unknown> = { updated_at: d.at };
        if (d.displayName !== undefined) patch.display_name = d.displayName;
        if (d.description !== undefined) patch.description = d.description;
        if (d.dataClassification !== undefined) patch.data_classification = d.dataClassification;
        await connector.update(patch);
        break;
      }
      case 'ConnectorConfigChanged':
        await connector.update({
          config: JSON.stringify(parsed.data.config),
          read_only_verified_at: null,
          status: trx.raw(
            `case when status = 'disabled' then 'disabled' when has_credential then 'probing' else 'unconfigured' end`,
          ),
          updated_at: parsed.data.at,
        });
        break;
      case 'CredentialSet':
        await connector.update({
          has_credential: true,
          read_only_verified_at: null,
          status: trx.raw(`case when status = 'disabled' then 'disabled' else 'probing' end`),
          updated_at: parsed.data.at,
        });
        break;
      case 'ProbeSucceeded':
      case 'ProbeFailed': {
        const r = parsed.data.result;
        const ok = parsed.type === 'ProbeSucceeded';
        await connector.update({
          status: ok ? 'active' : 'probe_failed',
          read_only_verified_at: ok ? r.at : null,
          last_probe: JSON.stringify(r),
          updated_at: r.at,
        });
        break;
      }
      case 'SchemaDiscovered':
        await trx(SCHEMAS_TABLE)
          .insert({
            connector_id: connectorId,
            tenant_id: tenantId,
            tables: JSON.stringify(parsed.data.tables),
            truncated: parsed.data.truncated,
            discovered_at: parsed.data.at,
          })
          .onConflict('connector_id')
          .merge();
        break;
      case 'ConnectorDisabled':
        await connector.update({ status: 'disabled', updated_at: parsed.data.at });
        break;
      case 'ConnectorEnabled':
        await connector.update({ status: 'probing', read_only_verified_at: null, updated_at: parsed.data.at });
        break;
      case 'ConnectorDeleted':
        await trx(EXPOSURES_TABLE).where({ connector_id: connectorId }).delete();
        await trx(SCHEMAS_TABLE).where({ connector_id: connectorId }).delete();
        await connector.delete();
        break;
      case 'ExposureDrafted': {
        const d = parsed.data;
        const key = await trx(CONNECTORS_TABLE).where({ connector_id: connectorId }).first('connector_key');
        await trx(EXPOSURES_TABLE).insert({
          connector_id: connectorId,
          tenant_id: tenantId,
          connector_key: key?.connector_key ?? '',
          ekey: d.ekey,
          display_name: d.displayName,
          description: d.description,
          sql: d.sql,
          sql_hash: d.sqlHash,
          parameters: JSON.stringify(d.parameters),
          max_rows: d.maxRows,
          status: 'draft',
          author_id: d.authorId,
          last_editor_id: d.authorId,
          created_at: d.at,
          updated_at: d.at,
        });
        break;
      }
      case 'ExposureEdited': {
        const d = parsed.data;
        await exposure(d.ekey).update({
          display_name: d.displayName,
          description: d.description,
          sql: d.sql,
          sql_hash: d.sqlHash,
          parameters: JSON.stringify(d.parameters),
          max_rows: d.maxRows,
          status: 'draft',
          approved_sql_hash: null,
          approved_by: null,
          approved_at: null,
          last_editor_id: d.editorId,
          updated_at: d.at,
        });
        break;
      }
      case 'ExposureSubmitted':
        await exposure(parsed.data.ekey).update({
          status: 'pending_review',
          submitted_by: parsed.data.by,
          updated_at: parsed.data.at,
        });
        break;
      case 'ExposureApproved':
        await exposure(parsed.data.ekey).update({
          status: 'approved',
          approved_sql_hash: parsed.data.approvedSqlHash,
          approved_sql: trx.ref('sql'),
          approved_by: parsed.data.by,
          approved_at: parsed.data.at,
          updated_at: parsed.data.at,
        });
        break;
      case 'ExposureRejected':
        await exposure(parsed.data.ekey).update({
          status: 'rejected',
          rejected_by: parsed.data.by,
          rejection_reason: parsed.data.reason,
          updated_at: parsed.data.at,
        });
        break;
      case 'ExposureRetired':
        await exposure(parsed.data.ekey).update({
          status: 'retired',
          approved_sql_hash: null,
          updated_at: parsed.data.at,
        });
        break;
      case 'ExposureDeleted':
        await exposure(parsed.data.ekey).delete();
        break;
    }
  },
};

export type { Knex };
