import type { Knex } from 'knex';
import { NotFound } from '../../src/platform/domain-errors';
import { CONNECTORS_TABLE, EXPOSURES_TABLE } from '../../projections/connectors/connectors-read-model';
import type { ExposureParameter } from '../../streams/connectors/connector';

/** Exposure views and the approved set agents and the bindings route read. */

export interface ExposureRow {
  connector_id: string;
  tenant_id: string;
  connector_key: string;
  ekey: string;
  display_name: string;
  description: string;
  sql: string;
  sql_hash: string;
  parameters: ExposureParameter[];
  max_rows: number | null;
  status: string;
  approved_sql_hash: string | null;
  approved_sql: string | null;
  author_id: string;
  last_editor_id: string;
  submitted_by: string | null;
  approved_by: string | null;
  approved_at: Date | null;
  rejected_by: string | null;
  rejection_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function exposureView(row: ExposureRow) {
  return {
    connector_key: row.connector_key,
    ekey: row.ekey,
    tool_name: `${row.connector_key}__${row.ekey}`,
    display_name: row.display_name,
    description: row.description,
    sql: row.sql,
    sql_hash: row.sql_hash,
    parameters: row.parameters,
    max_rows: row.max_rows,
    status: row.status,
    approved_sql_hash: row.approved_sql_hash,
    /** The last approved SQL (kept after edits, for the review diff); null if never approved. */
    approved_sql: row.approved_sql ?? null,
    author_id: row.author_id,
    last_editor_id: row.last_editor_id,
    submitted_by: row.submitted_by,
    approved_by: row.approved_by,
    approved_at: iso(row.approved_at),
    rejection_reason: row.rejection_reason,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export async function exposureRow(
  knex: Knex,
  tenantId: string,
  key: string,
  ekey: string,
): Promise<ExposureRow | undefined> {
  return knex<ExposureRow>(EXPOSURES_TABLE).where({ tenant_id: tenantId, connector_key: key, ekey }).first();
}

export async function getExposure(knex: Knex, tenantId: string, key: string, ekey: string) {
  const row = await exposureRow(knex, tenantId, key, ekey);
  if (!row) throw new NotFound('Exposure not found');
  return exposureView(row);
}

export async function listExposures(knex: Knex, tenantId: string, key: string, status?: string) {
  const connector = await knex(CONNECTORS_TABLE)
    .where({ tenant_id: tenantId, connector_key: key })
    .first('connector_id');
  if (!connector) throw new NotFound('Connector not found');
  const query = knex<ExposureRow>(EXPOSURES_TABLE)
    .where({ tenant_id: tenantId, connector_id: connector.connector_id })
    .orderBy('ekey');
  if (status) query.andWhere({ status });
  return (await query).map(exposureView);
}

/** Approved exposures of active, verified connectors: what agents may call now. */
export async function approvedExposures(knex: Knex, tenantId: string): Promise<ExposureRow[]> {
  return knex<ExposureRow>(`${EXPOSURES_TABLE} as e`)
    .join(`${CONNECTORS_TABLE} as c`, 'c.connector_id', 'e.connector_id')
    .where({ 'e.tenant_id': tenantId, 'e.status': 'approved', 'c.status': 'active' })
    .whereNotNull('c.read_only_verified_at')
    .orderBy(['e.connector_key', 'e.ekey'])
    .select('e.*');
}
