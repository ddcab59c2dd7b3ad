import { CONNECTORS_TABLE } from '../../../projections/connectors/connectors-read-model';
import { connectorAggregate } from '../../../streams/connectors/connector';
import { type AuditCatalog } from '../../platform/audit/catalog';

/** Connectors (with their exposures, which live on the connector's stream): `--connector <key>`. */
export const connectorsAuditCatalog: AuditCatalog = {
  aggregates: [{ kind: 'connector', aggregate: connectorAggregate }],
  finders: [
    {
      flag: 'connector',
      value: '<key>',
      async find(lookup, tenantId, value) {
        const rows: Array<{ connector_id: string }> = await lookup
          .knex(CONNECTORS_TABLE)
          .select('connector_id')
          .where({ tenant_id: tenantId, connector_key: value });
        return rows.map((r) => ({ kind: 'connector', id: r.connector_id, title: `connector ${value}` }));
      },
    },
  ],
};
