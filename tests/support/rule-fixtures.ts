import type { Neighbor } from '../../queries/compliance/graph-facts';
import type { VertexView } from '../../queries/graph/entities';
import type { FormPrContext } from '../../commands/checklists/assessment/form-pr';
import type { WellFacts } from '../../commands/checklists/assessment/well-facts';
import type { AssessedVertex } from '../../commands/compliance/packs/pack';
import { formPrUnit, productionPack, type ProductionFacts } from '../../commands/compliance/packs/production';
import { rule32Pack } from '../../commands/compliance/packs/rule-32';

/**
 * In-memory graph facts for the rule evaluators: entities and neighbours shaped as the packs'
 * `load` returns them, so a test feeds the dashboard evaluator and the checklist evaluator the
 * very same facts.
 */
type Props = Record<string, string | number>;
const strings = (p: Props) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)]));

export const entity = (label: string, entityId: string, properties: Props = {}): AssessedVertex => ({
  vertexId: `v-${entityId}`,
  entityId,
  label,
  properties: strings({ entity_id: entityId, ...properties }),
});

export const neighbor = (
  label: string,
  entityId: string,
  properties: Props = {},
  edge: Record<string, string> = {},
): Neighbor => ({ vertexId: `v-${entityId}`, entityId, label, properties: strings(properties), edge });

export const keyed = (of: AssessedVertex, list: Neighbor[]) => new Map(list.length > 0 ? [[of.vertexId, list]] : []);

export const authorization = (id: string, mcf: number | null, expiry: string | null, extra: Props = {}) =>
  neighbor('FlaringAuthorization', id, {
    ...(mcf === null ? {} : { authorized_mcf: mcf }),
    ...(expiry === null ? {} : { expiry_date: expiry }),
    status: 'active',
    ...extra,
  });

/** Production facts of a lease and its wells (the wells as the pack loads them: LOCATED_IN the lease). */
export function leaseFacts(lease: AssessedVertex, wells: AssessedVertex[]): ProductionFacts {
  return {
    wellsOfLease: keyed(
      lease,
      wells.map((w) => neighbor('Well', w.entityId, w.properties)),
    ),
    leaseOfWell: new Map(wells.map((w) => [w.vertexId, [neighbor('Lease', lease.entityId, lease.properties)]])),
  };
}

export const NO_LEASE: ProductionFacts = { wellsOfLease: new Map(), leaseOfWell: new Map() };

const view = (v: AssessedVertex): VertexView => ({
  id: v.vertexId,
  label: v.label,
  entity_id: v.entityId,
  properties: v.properties,
});

/** The checklist's view of an entity with no neighbourhood (the rule facts travel separately). */
export const wellFacts = (subject: AssessedVertex, extra: Partial<WellFacts> = {}): WellFacts => ({
  well: view(subject),
  lease: null,
  field: null,
  operator: null,
  formations: [],
  permits: [],
  authorizations: [],
  flaringEvents: [],
  deadlines: [],
  offsets: [],
  regulations: [],
  ...extra,
});

/** A Form PR checklist's context over in-memory facts: the unit (a lease or a well), the production facts, each well's authorizations and remarks. */
export function formPrContext(options: {
  subject: AssessedVertex;
  production: ProductionFacts;
  authorizations?: Record<string, Neighbor[]>;
  remarks?: Record<string, Array<{ date: string; remark: string }>>;
  wells?: AssessedVertex[];
  period: string;
  today: string;
  extra?: Partial<WellFacts>;
}): FormPrContext {
  const unit = formPrUnit(options.subject, options.production);
  if (!unit) throw new Error(`${options.subject.entityId} is not a Form PR unit`);
  const wells = options.wells ?? [options.subject];
  const facts = wellFacts(options.subject, options.extra);
  return {
    facts,
    unit,
    production: { pack: productionPack, entity: options.subject, facts: options.production },
    flaring: wells
      .filter((w) => w.properties.status !== 'permitted')
      .map((w) => ({
        pack: rule32Pack,
        entity: w,
        facts: { authorizations: keyed(w, options.authorizations?.[w.entityId] ?? []) },
      })),
    remarks: new Map(Object.entries(options.remarks ?? {})),
    period: options.period,
    today: options.today,
  };
}
