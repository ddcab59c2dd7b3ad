import type { Knex } from 'knex';
import { graphFacts } from '../../../queries/compliance/graph-facts';
import { namespaceOf } from '../../../streams/graph/names';
import { type FormPrUnit, formPrUnit, type ProductionFacts } from '../../compliance/packs/production';
import type { FormPrContext } from './form-pr';
import { loadRuleSubject, type RuleSubject } from './rule-verdicts';
import type { WellFacts } from './well-facts';

/**
 * What a Form PR checklist is judged on, loaded the way the dashboard loads it: the filing unit
 * (an oil well's checklist is assessed on its lease, as the regulator files it), the unit's
 * Form PR subject, the Rule 32 subject of each of its wells and their flaring events' remarks.
 */
export async function loadFormPrContext(
  knex: Knex,
  tenantId: string,
  facts: WellFacts,
  period: string,
  today: string,
): Promise<FormPrContext> {
  const { label, entity_id } = facts.well;
  const { production, unit } = await loadFormPrUnit(knex, tenantId, label, entity_id);
  const reporting = unit.wells.filter((w) => w.properties.status !== 'permitted' && w.properties.status !== 'plugged');
  const flaring = (
    await Promise.all(reporting.map((w) => loadRuleSubject(knex, tenantId, 'rule_32', 'Well', w.entityId)))
  ).filter((s): s is RuleSubject => s !== null);
  const events = await graphFacts(knex, namespaceOf(tenantId)).neighbors(
    flaring.map((s) => s.entity.vertexId),
    'FLARES_AT',
    'Well',
    'FlaringEvent',
    'in',
    ['date', 'authority_remark'],
  );
  const remarks = new Map(
    flaring.map((s) => [
      s.entity.entityId,
      (events.get(s.entity.vertexId) ?? []).map((e) => ({
        date: e.properties.date ?? null,
        remark: e.properties.authority_remark ?? null,
      })),
    ]),
  );
  return { facts, unit, production, flaring, remarks, period, today };
}

/** The Form PR filing unit of a well or lease: the well's oil lease when the lease files it, else the entity itself. */
export async function loadFormPrUnit(
  knex: Knex,
  tenantId: string,
  label: string,
  entityId: string,
): Promise<{ production: RuleSubject; unit: FormPrUnit }> {
  let production = await loadRuleSubject(knex, tenantId, 'production', label, entityId);
  if (!production) throw new Error(`${label} ${entityId} is not in the knowledge graph`);
  let unit = formPrUnit(production.entity, production.facts as ProductionFacts);
  if (!unit && label === 'Well') {
    const lease = (production.facts as ProductionFacts).leaseOfWell.get(production.entity.vertexId)?.[0];
    const onLease = lease ? await loadRuleSubject(knex, tenantId, 'production', 'Lease', lease.entityId) : null;
    if (onLease) {
      production = onLease;
      unit = formPrUnit(onLease.entity, onLease.facts as ProductionFacts);
    }
  }
  if (!unit) throw new Error(`Form PR of gas lease ${entityId} is filed per gas well: assess one of its wells`);
  return { production, unit };
}
