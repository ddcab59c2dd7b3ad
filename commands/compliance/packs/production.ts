import type { Neighbor } from '../../../queries/compliance/graph-facts';
import type { Properties } from '../../../streams/graph/properties';
import { addDays, lastDayOfMonth, nextMonth } from '../rules/calendar';
import { describeFigures, FIGURE_FIELDS, monthFigures } from '../rules/figures';
import { cite, CITATIONS, TEXAS_RULES, type TexasRules } from '../rules/texas-rules';
import { type AssessedVertex, type DomainPack, neighborsOf, sourceOf, verdict, type Verdict } from './pack';

export interface ProductionFacts {
  /** Lease vertex id → its wells; Well vertex id → its lease. */
  wellsOfLease: Map<string, Neighbor[]>;
  leaseOfWell: Map<string, Neighbor[]>;
}

const WELL_FIELDS = ['status', 'well_type', 'allocation_method', ...FIGURE_FIELDS] as const;
const NOT_REPORTING = new Set(['permitted', 'plugged']);
const NOT_PRODUCING = new Set(['shut_in', 'inactive', 'plugged', 'temporarily_abandoned']);
const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;

/** Form PR for a production month is due on the last working day of the following month (16 TAC §3.58). */
export const formPrDueIn = (rules: TexasRules) => (period: string) =>
  rules.calendar.lastWorkingDayOfMonth(nextMonth(period));
export const formPrDue = formPrDueIn(TEXAS_RULES);
export { nextMonth };

/** The unit a Form PR reports: an oil lease with its wells, or one gas well (or an oil well whose lease the graph lacks). */
export interface FormPrUnit {
  kind: 'oil_lease' | 'gas_well' | 'oil_well';
  entity: AssessedVertex;
  wells: Array<{ entityId: string; properties: Properties }>;
}

const isGasWell = (p: Properties) => p.well_type === 'gas';
const leaseCode = (lease: { entityId: string; properties: Properties }) =>
  lease.properties.oil_gas_code ?? (/^[OG]-/.test(lease.entityId) ? lease.entityId[0] : null);

/**
 * Which unit a graph entity files its Form PR in: an oil lease (code O) reports all its wells;
 * a gas well reports on its own; an oil well reports on its lease (null here: the lease is the
 * unit, and a checklist about the well is assessed on the lease). A gas lease files nothing
 * itself. An oil well the graph knows no lease of is its own unit.
 */
export function formPrUnit(entity: AssessedVertex, facts: ProductionFacts): FormPrUnit | null {
  if (entity.label === 'Lease') {
    const wells = neighborsOf(facts.wellsOfLease, entity.vertexId).map((w) => ({
      entityId: w.entityId,
      properties: w.properties,
    }));
    const code = leaseCode(entity) ?? (wells.length > 0 && wells.every((w) => isGasWell(w.properties)) ? 'G' : 'O');
    return code === 'G' ? null : { kind: 'oil_lease', entity, wells };
  }
  if (isGasWell(entity.properties))
    return { kind: 'gas_well', entity, wells: [{ entityId: entity.entityId, properties: entity.properties }] };
  if (neighborsOf(facts.leaseOfWell, entity.vertexId).length > 0) return null;
  return { kind: 'oil_well', entity, wells: [{ entityId: entity.entityId, properties: entity.properties }] };
}

/**
 * Form PR (Statewide Rule 58): monthly, per oil lease (its wells' volumes, allocated by the
 * lease's allocation method) and per gas well, due on the last working day of the month after
 * the production month. "Filed through" is the unit's `form_pr_period` (for a lease without
 * one, the earliest of its wells'). The dashboard judges the report currently owed (the month
 * after the last filed one) and names it; a checklist judges its own month.
 *   filed month: green with its figures; figures missing → grey (a filing the graph cannot back).
 *   unfiled month: past its due date → red; due within `dueSoonDays` → amber; the month not yet
 *   over → green; figures missing → grey; else green with the figures ready.
 * Production reported for a shut-in or inactive well carries the anomaly flag.
 */
export function createProductionPack(rules: TexasRules = TEXAS_RULES): DomainPack<ProductionFacts> {
  const due = formPrDueIn(rules);
  const rule = (what: string) => cite(CITATIONS.rule_58, what);

  function assessUnit(unit: FormPrUnit, today: string, period?: string): Verdict {
    const { entity } = unit;
    const source = sourceOf(entity);
    const p = entity.properties;
    const reporting = unit.wells.filter((w) => !NOT_REPORTING.has(w.properties.status ?? ''));
    const base = {
      source,
      unit: unit.kind,
      wells: reporting.length,
      allocation_method:
        p.allocation_method ??
        reporting.find((w) => w.properties.allocation_method)?.properties.allocation_method ??
        null,
    };
    if (reporting.length === 0)
      return verdict(today, {
        color: 'grey',
        reason: rule(`no drilled well on ${entity.entityId}: no Form PR due`),
        facts: base,
      });
    const wellFiled = reporting.map((w) =>
      PERIOD.test(w.properties.form_pr_period ?? '') ? w.properties.form_pr_period! : null,
    );
    const filed = PERIOD.test(p.form_pr_period ?? '')
      ? p.form_pr_period!
      : wellFiled.every((f) => f !== null)
        ? (wellFiled as string[]).sort()[0]
        : null;
    if (!filed) {
      const missing = reporting.filter((_, i) => wellFiled[i] === null).map((w) => w.entityId);
      return verdict(today, {
        color: 'grey',
        reason: rule(
          `no Form PR on record for ${entity.entityId}${unit.kind === 'oil_lease' ? ` (wells without one: ${missing.join(', ')})` : ''}`,
        ),
        facts: { ...base, filed_through: null },
      });
    }
    const month = period ?? nextMonth(filed);
    const dueDate = due(month);
    const figures = reporting.map((w) => ({ well: w, f: monthFigures(w.properties, month) }));
    const missing = figures.filter((x) => x.f === null).map((x) => x.well.entityId);
    const oil = figures.reduce((s, x) => s + (x.f?.oilBbl ?? 0), 0);
    const gas = figures.reduce((s, x) => s + (x.f?.gasMcf ?? 0), 0);
    // The anomaly reads the newest reported month on the dashboard (the owed month has no figures yet).
    const anomalyMonth = period ?? filed;
    const anomalyWells = reporting
      .filter((w) => NOT_PRODUCING.has(w.properties.status ?? ''))
      .filter((w) => {
        const f = monthFigures(w.properties, anomalyMonth);
        return (f?.oilBbl ?? 0) > 0 || (f?.gasMcf ?? 0) > 0;
      })
      .map((w) => w.entityId);
    const anomaly = anomalyWells.length > 0;
    const note = anomaly ? `; production reported for non-producing well ${anomalyWells.join(', ')}` : '';
    const facts = {
      ...base,
      filed_through: filed,
      period: month,
      due_date: dueDate,
      oil_bbl: missing.length === reporting.length ? null : oil,
      gas_mcf: missing.length === reporting.length ? null : gas,
      wells_without_figures: missing.join(', ') || null,
    };
    const noFigures = `no production figures for ${month} in the graph${unit.kind === 'oil_lease' ? ` for ${missing.join(', ')}` : ''}`;
    const figuresText = `${describeFigures({ oilBbl: facts.oil_bbl, gasMcf: facts.gas_mcf })}${unit.kind === 'oil_lease' ? ` from ${reporting.length} well(s), allocated by ${base.allocation_method ?? 'an allocation method not on record'}` : ''}`;
    if (month <= filed) {
      if (missing.length > 0)
        return verdict(today, {
          color: 'grey',
          anomaly,
          reason: rule(`Form PR for ${month} recorded as filed, but ${noFigures}${note}`),
          facts,
        });
      return verdict(today, {
        color: anomaly ? 'amber' : 'green',
        anomaly,
        reason: rule(`Form PR for ${month} filed: ${figuresText}${note}`),
        facts,
      });
    }
    if (dueDate < today)
      return verdict(today, {
        color: 'red',
        dueDate,
        anomaly,
        reason: rule(`Form PR for ${month} not filed; it was due ${dueDate}${note}`),
        facts,
      });
    if (reporting.some((w) => monthFigures(w.properties, filed) === null)) {
      return verdict(today, {
        color: 'grey',
        dueDate,
        anomaly,
        reason: rule(
          `filed through ${filed}, but no production figures for ${filed} in the graph; Form PR for ${month} due ${dueDate}${note}`,
        ),
        facts,
      });
    }
    if (dueDate <= addDays(today, rules.dueSoonDays)) {
      return verdict(today, {
        color: 'amber',
        dueDate,
        anomaly,
        reason: rule(
          `Form PR for ${month} due ${dueDate}${missing.length > 0 ? `; ${noFigures}` : `: ${figuresText}`}${note}`,
        ),
        facts,
      });
    }
    if (today <= lastDayOfMonth(month)) {
      return verdict(today, {
        color: anomaly ? 'amber' : 'green',
        dueDate,
        anomaly,
        reason: rule(
          `Form PR filed through ${filed}; ${month} is reported after the month ends, due ${dueDate}${note}`,
        ),
        facts,
      });
    }
    if (missing.length > 0)
      return verdict(today, {
        color: 'grey',
        dueDate,
        anomaly,
        reason: rule(`Form PR for ${month} due ${dueDate}; ${noFigures}${note}`),
        facts,
      });
    return verdict(today, {
      color: anomaly ? 'amber' : 'green',
      dueDate,
      anomaly,
      reason: rule(`Form PR for ${month} due ${dueDate}; figures ready: ${figuresText}${note}`),
      facts,
    });
  }

  return {
    domain: 'production',
    title: 'Form PR production reporting',
    short_title: 'Production',
    appliesTo: ['Lease', 'Well'],
    entityFields: ['oil_gas_code', 'allocation_method', ...WELL_FIELDS],
    async load(graph, vertexIds) {
      const [wellsOfLease, leaseOfWell] = await Promise.all([
        graph.neighbors(vertexIds, 'LOCATED_IN', 'Lease', 'Well', 'in', WELL_FIELDS),
        graph.neighbors(vertexIds, 'LOCATED_IN', 'Well', 'Lease', 'out', ['oil_gas_code']),
      ]);
      return { wellsOfLease, leaseOfWell };
    },
    assess(entity, facts, today, period) {
      const unit = formPrUnit(entity, facts);
      return unit ? assessUnit(unit, today, period) : null;
    },
  };
}

export const productionPack = createProductionPack();
