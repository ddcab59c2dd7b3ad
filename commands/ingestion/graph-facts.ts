import type { EntityFact, GraphFacts, ProductionFact, RelationFact } from './feed-graph';
import type { CsvWell } from '../../streams/ingestion/operator-csv-import';
import type { ExtractedEdge, ExtractedEntity } from '../../streams/ingestion/entity-extraction';
import type {
  RrcFlaringAuthorization,
  RrcLease,
  RrcOperator,
  RrcPermit,
  RrcProduction,
  RrcWell,
} from './rrc-simulator';

/**
 * What each ingestion record means for the knowledge graph, keyed as the seed portfolio keys
 * entities: Well = API number, Operator = `P5-<p5>`, Lease = `<O|G>-<district>-<number>`,
 * Field = field number, Permit = `W1-<number>`, FlaringAuthorization = its R-32 number.
 * Used by the commands and by the broker consumer alike, so both feed the same graph.
 */
const strings = (values: Record<string, unknown>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const k in values) {
    const v = values[k];
    if (v !== undefined && v !== null && v !== '') out[k] = String(v);
  }
  return out;
};

const rel = (label: string, fromLabel: string, fromId: string, toLabel: string, toId: string): RelationFact => ({
  label,
  from: { label: fromLabel, entityId: fromId },
  to: { label: toLabel, entityId: toId },
});
export const operatorId = (p5: string) => `P5-${p5}`;
export const permitId = (number: string) => `W1-${number}`;

export function scrapeFacts(dataType: string, records: Array<Record<string, unknown>>): GraphFacts {
  const entities: EntityFact[] = [];
  const relations: RelationFact[] = [];
  const production: ProductionFact[] = [];
  for (const record of records) {
    switch (dataType) {
      case 'wells': {
        const w = record as unknown as RrcWell;
        entities.push({
          label: 'Well',
          entityId: w.api_number,
          properties: strings({
            api_number: w.api_number,
            name: w.well_name,
            well_name: w.well_name,
            well_number: w.well_number,
            county: w.county,
            district: w.district,
            field: w.field_name,
            lease: w.lease_key,
            status: w.status,
            well_type: w.well_type,
            spud_date: w.spud_date,
            completion_date: w.completion_date,
            latitude: w.latitude,
            longitude: w.longitude,
            source: 'rrc',
          }),
        });
        entities.push({
          label: 'Field',
          entityId: w.field_number,
          properties: strings({ name: w.field_name, field_number: w.field_number, district: w.district, state: 'TX' }),
        });
        // The operator and lease as the well record names them, so its edges have both ends.
        entities.push({
          label: 'Operator',
          entityId: operatorId(w.operator_p5),
          properties: strings({ p5_number: w.operator_p5 }),
        });
        entities.push({
          label: 'Lease',
          entityId: w.lease_key,
          properties: strings({
            lease_number: w.lease_key.split('-')[2],
            district: w.district,
            oil_gas_code: w.lease_key[0],
          }),
        });
        relations.push(rel('LOCATED_IN', 'Well', w.api_number, 'Field', w.field_number));
        relations.push(rel('LOCATED_IN', 'Well', w.api_number, 'Lease', w.lease_key));
        relations.push(rel('OPERATED_BY', 'Well', w.api_number, 'Operator', operatorId(w.operator_p5)));
        break;
      }
      case 'operators': {
        const o = record as unknown as RrcOperator;
        entities.push({
          label: 'Operator',
          entityId: operatorId(o.p5_number),
          properties: strings({
            name: o.name,
            p5_number: o.p5_number,
            p5_status: o.p5_status,
            p5_renewal_month: o.p5_renewal_month,
          }),
        });
        break;
      }
      case 'leases': {
        const l = record as unknown as RrcLease;
        entities.push({
          label: 'Lease',
          entityId: l.lease_key,
          properties: strings({
            name: l.name,
            lease_number: l.lease_number,
            district: l.district,
            county: l.county,
            oil_gas_code: l.oil_gas_code,
          }),
        });
        relations.push(rel('OPERATED_BY', 'Lease', l.lease_key, 'Operator', operatorId(l.operator_p5)));
        break;
      }
      case 'permits': {
        const p = record as unknown as RrcPermit;
        entities.push({
          label: 'Permit',
          entityId: permitId(p.permit_number),
          properties: strings({
            permit_number: p.permit_number,
            status: p.status,
            type: p.type,
            form: p.form,
            issued_date: p.issued_date,
            expiration_date: p.expiration_date,
            api_number: p.api_number,
          }),
        });
        relations.push(rel('PART_OF', 'Permit', permitId(p.permit_number), 'Well', p.api_number));
        break;
      }
      case 'production': {
        const p = record as unknown as RrcProduction;
        // A production row names its well: the well exists in the graph even when only production was scraped.
        entities.push({
          label: 'Well',
          entityId: p.api_number,
          properties: strings({ api_number: p.api_number, lease: p.lease_key }),
        });
        production.push({
          apiNumber: p.api_number,
          report: {
            reporting_month: p.reporting_month,
            oil_bbls: p.oil_bbls,
            gas_mcf: p.gas_mcf,
            water_bbls: p.water_bbls,
            disposition_code_10_mcf: p.disposition_code_10_mcf,
            disposition_code_11_mcf: p.disposition_code_11_mcf,
            producing_days: p.producing_days,
            ...(p.authority_remark ? { authority_remark: p.authority_remark } : {}),
          },
        });
        break;
      }
      case 'flaring': {
        const f = record as unknown as RrcFlaringAuthorization;
        entities.push({
          label: 'FlaringAuthorization',
          entityId: f.auth_number,
          properties: strings({
            auth_number: f.auth_number,
            authorized_mcf: f.authorized_mcf,
            expiry_date: f.expiry_date,
            issued_date: f.issued_date,
            form: f.form,
            hearing_required: f.hearing_required,
            api_number: f.api_number,
          }),
        });
        relations.push(rel('FLARES_AT', 'FlaringAuthorization', f.auth_number, 'Well', f.api_number));
        break;
      }
    }
  }
  return { entities, relations, production };
}

/** Columns of the normalised operator CSV (see csv-wells.ts) as graph facts. */
export function csvFacts(wells: CsvWell[]): GraphFacts {
  const entities: EntityFact[] = [];
  const relations: RelationFact[] = [];
  for (const { apiNumber, values: v } of wells) {
    entities.push({
      label: 'Well',
      entityId: apiNumber,
      properties: strings({
        api_number: apiNumber,
        name: v.well_name ?? (v.lease_name ? `${v.lease_name} ${v.well_number ?? ''}`.trim() : undefined),
        well_name: v.well_name,
        well_number: v.well_number,
        operator: v.operator_name,
        lease: v.lease_name,
        field: v.field_name,
        county: v.county,
        district: v.district,
        latitude: v.latitude,
        longitude: v.longitude,
        status: v.status,
        well_type: v.well_type,
        spud_date: v.spud_date,
        completion_date: v.completion_date,
        total_depth_ft: v.total_depth,
        source: 'operator_csv',
      }),
    });
    if (v.operator_number) {
      entities.push({
        label: 'Operator',
        entityId: operatorId(v.operator_number),
        properties: strings({ p5_number: v.operator_number, name: v.operator_name }),
      });
      relations.push(rel('OPERATED_BY', 'Well', apiNumber, 'Operator', operatorId(v.operator_number)));
    }
    if (v.lease_number && v.district) {
      const leaseKey = `${v.well_type === 'gas' ? 'G' : 'O'}-${v.district}-${v.lease_number}`;
      entities.push({
        label: 'Lease',
        entityId: leaseKey,
        properties: strings({
          name: v.lease_name,
          lease_number: v.lease_number,
          district: v.district,
          county: v.county,
        }),
      });
      relations.push(rel('LOCATED_IN', 'Well', apiNumber, 'Lease', leaseKey));
      if (v.operator_number)
        relations.push(rel('OPERATED_BY', 'Lease', leaseKey, 'Operator', operatorId(v.operator_number)));
    }
    if (v.field_number) {
      entities.push({
        label: 'Field',
        entityId: v.field_number,
        properties: strings({ name: v.field_name, field_number: v.field_number, district: v.district }),
      });
      relations.push(rel('LOCATED_IN', 'Well', apiNumber, 'Field', v.field_number));
    }
  }
  return { entities, relations };
}

const LABEL_OF_TYPE: Record<string, string> = {
  well: 'Well',
  operator: 'Operator',
  lease: 'Lease',
  permit: 'Permit',
  field: 'Field',
};

/**
 * Free text: wells (by API number) and permits (by number) are created; operators, leases
 * and fields only link to vertices the graph already names that way (a name in prose is
 * not an identity). Counties are no vertex label of the graph and stay in the event.
 */
export function extractionFacts(entities: ExtractedEntity[], edges: ExtractedEdge[]): GraphFacts {
  const byName = new Map<string, EntityFact>();
  for (const e of entities) {
    const label = LABEL_OF_TYPE[e.type];
    if (!label) continue;
    let fact: EntityFact;
    if (e.type === 'well' && e.api_number)
      fact = { label, entityId: e.api_number, properties: { api_number: e.api_number, source: 'extraction' } };
    else if (e.type === 'permit')
      fact = { label, entityId: permitId(e.name), properties: { permit_number: e.name, source: 'extraction' } };
    else fact = { label, entityId: `name:${e.name}`, properties: {}, matchByName: e.name };
    byName.set(e.name, fact);
  }
  const relations: RelationFact[] = [];
  for (const edge of edges) {
    const from = byName.get(edge.from);
    const to = byName.get(edge.to);
    if (from && to) relations.push(rel(edge.type, from.label, from.entityId, to.label, to.entityId));
  }
  return { entities: [...byName.values()], relations };
}
