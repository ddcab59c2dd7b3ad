import type { Knex } from 'knex';
import { NotFound } from '../../src/platform/domain-errors';
import { CONNECTORS_TABLE, SCHEMAS_TABLE } from '../../projections/connectors/connectors-read-model';

/** Connector views; another tenant's key answers 404 like a missing one. */

export interface ConnectorRow {
  connector_id: string;
  tenant_id: string;
  connector_key: string;
  display_name: string;
  description: string;
  connector_type: string;
  config: Record<string, unknown>;
  status: string;
  has_credential: boolean;
  read_only_verified_at: Date | null;
  last_probe: Record<string, unknown> | null;
  data_classification: string;
  created_at: Date;
  updated_at: Date;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function connectorView(row: ConnectorRow) {
  return {
    connector_key: row.connector_key,
    display_name: row.display_name,
    description: row.description,
    connector_type: row.connector_type,
    config: row.config,
    status: row.status,
    has_credential: row.has_credential,
    read_only_verified_at: iso(row.read_only_verified_at),
    last_probe: row.last_probe,
    data_classification: row.data_classification,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export async function listConnectors(knex: Knex, tenantId: string) {
  const rows = await knex<ConnectorRow>(CONNECTORS_TABLE).where({ tenant_id: tenantId }).orderBy('connector_key');
  return rows.map(connectorView);
}

export async function findConnectorRow(knex: Knex, tenantId: string, key: string): Promise<ConnectorRow> {
  const row = await knex<ConnectorRow>(CONNECTORS_TABLE).where({ tenant_id: tenantId, connector_key: key }).first();
  if (!row) throw new NotFound('Connector not found');
  return row;
}

export async function getConnector(knex: Knex, tenantId: string, key: string) {
  return connectorView(await findConnectorRow(knex, tenantId, key));
}

export async function getConnectorSchema(knex: Knex, tenantId: string, key: string) {
  const connector = await findConnectorRow(knex, tenantId, key);
  const row = await knex(SCHEMAS_TABLE).where({ tenant_id: tenantId, connector_id: connector.connector_id }).first();
  return {
    connector_key: key,
    discovered_at: iso(row?.discovered_at ?? null),
    truncated: row?.truncated ?? false,
    tables: row?.tables ?? [],
  };
}
