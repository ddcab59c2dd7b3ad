import { DISPOSITION_CODES, formPrChecks, type FormPrCheckInput } from '../../../streams/checklists/form-pr-checks';
import type { FormPrUnit } from '../../compliance/packs/production';
import { authorizationTerms, type Rule32Facts } from '../../compliance/packs/rule-32';
import { monthFigures } from '../../compliance/rules/figures';
import { type ItemFrames } from './frames';
import { type RuleSubject, recordVerdict } from './rule-verdicts';
import type { WellFacts } from './well-facts';
import { formPrDueDate } from './working-days';

/**
 * Form PR (monthly production report) as the regulator files it: per oil lease (the lease's
 * wells, allocated by the lease's method) or per gas well. Figures come from the graph (the
 * newest month's fields, or the 12-month history); a month the graph holds nothing for is
 * reported as missing, never as 0. The Rule 32 and Form PR verdicts are the compliance packs'
 * own evaluators (`recordVerdict`), judged on the checklist's month.
 */
export const AUTHORITY_REMARKS = ['AR', 'AE', 'EP', 'EX'] as const;

export interface FormPrContext {
  /** The checklist's entity (a well, or an oil lease) with its neighbourhood, for identification. */
  facts: WellFacts;
  /** The filing unit, its Form PR subject and the Rule 32 subject of each of its wells. */
  unit: FormPrUnit;
  production: RuleSubject;
  flaring: RuleSubject[];
  /** Authority remarks of the unit's flaring events, by well entity id. */
  remarks: Map<string, Array<{ date: string | null; remark: string | null }>>;
  period: string;
  today: string;
}

export interface WellMonth {
  entityId: string;
  oilBbl: number | null;
  gasMcf: number | null;
  basis: 'current_month' | 'history' | 'none';
}

export interface FormPrFigures {
  period: string;
  wellType: 'oil' | 'gas';
  wells: WellMonth[];
  /** Unit totals; null when any reporting well has no figures for the month. */
  oilBbl: number | null;
  gasMcf: number | null;
  missing: string[];
  /** Code → mcf, summed over the wells whose newest reported month is the period. */
  dispositions: Record<string, number> | null;
  allocationMethod: string | null;
}

const REPORTING = (status: string | undefined) => status !== 'permitted' && status !== 'plugged';
const whole = (v: number | null) => (v === null ? null : Math.round(v));

export function formPrFigures(unit: FormPrUnit, period: string): FormPrFigures {
  const reporting = unit.wells.filter((w) => REPORTING(w.properties.status));
  const wells: WellMonth[] = reporting.map((w) => {
    const f = monthFigures(w.properties, period);
    return {
      entityId: w.entityId,
      oilBbl: whole(f?.oilBbl ?? null),
      gasMcf: whole(f?.gasMcf ?? null),
      basis: f?.basis ?? 'none',
    };
  });
  const missing = wells.filter((w) => w.basis === 'none').map((w) => w.entityId);
  const sum = (pick: (w: WellMonth) => number | null) =>
    missing.length > 0 ? null : wells.reduce((s, w) => s + (pick(w) ?? 0), 0);
  let dispositions: Record<string, number> | null = {};
  for (const w of reporting) {
    const p = w.properties;
    if (p.form_pr_period !== period) {
      dispositions = null;
      break;
    }
    const codes: [string, string][] = [
      ['01', 'gas_used_on_lease_mcf'],
      ['02', 'gas_sold_mcf'],
      ['10', 'gas_flared_mcf'],
      ['11', 'gas_vented_mcf'],
    ];
    for (const [code, property] of codes) {
      const v = p[property] === undefined || p[property] === '' ? null : Number(p[property]);
      if (v !== null && Number.isFinite(v)) dispositions[code] = (dispositions[code] ?? 0) + v;
    }
  }
  if (reporting.length === 0) dispositions = null;
  const allocationMethod =
    unit.entity.properties.allocation_method ??
    reporting.find((w) => w.properties.allocation_method)?.properties.allocation_method ??
    null;
  return {
    period,
    wellType: unit.kind === 'gas_well' ? 'gas' : 'oil',
    wells,
    oilBbl: sum((w) => w.oilBbl),
    gasMcf: sum((w) => w.gasMcf),
    missing,
    dispositions,
    allocationMethod,
  };
}

/** The unit's Rule 32 authorizations (its wells' and their lease's), each once. */
export function unitAuthorizations(ctx: Pick<FormPrContext, 'flaring'>): FormPrCheckInput['authorizations'] {
  const byId = new Map<string, FormPrCheckInput['authorizations'][number]>();
  for (const subject of ctx.flaring) {
    const neighbors = (subject.facts as Rule32Facts).authorizations.get(subject.entity.vertexId) ?? [];
    for (const a of authorizationTerms(neighbors)) byId.set(a.id, { id: a.id, from: a.from, expires: a.expires });
  }
  return [...byId.values()];
}

export function assessFormPrItem(key: string, frames: ItemFrames, ctx: FormPrContext): string {
  const { facts, period, today, unit } = ctx;
  const entity = facts.well;
  const p = entity.properties;
  const unitSource = `graph:${unit.entity.label}/${unit.entity.entityId}`;
  const figures = formPrFigures(unit, period);
  const confidence =
    figures.missing.length > 0 ? 0 : figures.wells.every((w) => w.basis === 'current_month') ? 0.95 : 0.8;
  const noFigures = `no production figures for ${period} in the graph for ${figures.missing.join(', ')}`;
  const unitName =
    unit.kind === 'oil_lease'
      ? `oil lease ${unit.entity.entityId}`
      : `${unit.kind === 'gas_well' ? 'gas' : 'oil'} well ${unit.entity.entityId}`;

  switch (key) {
    case 'well_identification': {
      const lease = entity.label === 'Lease' ? p : facts.lease;
      const rows = [
        { field: 'reporting_unit', value: unitName },
        { field: 'api_number', value: entity.label === 'Well' ? (p.api_number ?? entity.entity_id) : null },
        { field: 'operator', value: p.operator ?? facts.operator?.name ?? null },
        { field: 'operator_p5_number', value: facts.operator?.p5_number ?? null },
        { field: 'district', value: p.district ?? lease?.district ?? null },
        { field: 'field', value: p.field ?? facts.field?.name ?? null },
        { field: 'lease', value: entity.label === 'Lease' ? (p.name ?? null) : (p.lease ?? lease?.name ?? null) },
        { field: 'lease_number', value: lease?.lease_number ?? null },
        { field: 'well_number', value: entity.label === 'Well' ? (p.well_number ?? null) : null },
        { field: 'wells_reported', value: figures.wells.map((w) => w.entityId).join(', ') || null },
        { field: 'allocation_method', value: unit.kind === 'oil_lease' ? figures.allocationMethod : null },
        { field: 'production_month', value: period },
      ];
      frames.table(['field', 'value'], rows);
      for (const row of rows)
        frames.field(row.field, row.value, row.value === null ? 0 : 1, `graph:${entity.label}/${entity.entity_id}`);
      if (entity.label === 'Well') {
        const api = p.api_number ?? entity.entity_id;
        frames.check(
          'api_number_format',
          /^42-\d{3}-\d{5}(-\d{2}){0,2}$/.test(api),
          /^42-\d{3}-\d{5}/.test(api)
            ? `API number ${api} is a Texas API number`
            : `API number ${api} is not of the form 42-CCC-UUUUU`,
        );
      }
      if (unit.kind === 'oil_lease')
        frames.check(
          'allocation_method',
          figures.allocationMethod !== null,
          figures.allocationMethod
            ? `lease production allocated to wells by ${figures.allocationMethod}`
            : 'no allocation method on record for the lease',
          figures.allocationMethod ? 'info' : 'warning',
        );
      const p5 = facts.operator?.p5_number ?? null;
      frames.check(
        'operator_p5_number',
        !!p5 && /^\d{6}$/.test(p5),
        p5 ? `operator P-5 number ${p5}` : 'no operator P-5 number in the graph',
        p5 ? 'info' : 'warning',
      );
      return `Form PR of ${unitName} (${figures.wells.length} well(s)), production month ${period}`;
    }
    case 'oil_production': {
      frames.table(
        ['well', 'oil_bbls', 'gas_mcf', 'basis'],
        figures.wells.map((w) => ({ well: w.entityId, oil_bbls: w.oilBbl, gas_mcf: w.gasMcf, basis: w.basis })),
      );
      const name = figures.wellType === 'oil' ? 'oil_production_bbl' : 'condensate_production_bbl';
      frames.field(name, figures.oilBbl, confidence, unitSource);
      frames.check(
        'production_found',
        figures.missing.length === 0 && figures.wells.length > 0,
        figures.wells.length === 0
          ? `no drilled well reports on ${unitName}`
          : figures.missing.length > 0
            ? noFigures
            : `${figures.oilBbl} bbl for ${period} from ${figures.wells.length} well(s)`,
      );
      if (figures.oilBbl !== null)
        frames.check(
          'whole_barrels_non_negative',
          figures.oilBbl >= 0,
          `${figures.oilBbl} bbl reported in whole barrels`,
        );
      return figures.oilBbl === null
        ? `No liquid production figures for ${period}`
        : `${figures.oilBbl} bbl ${figures.wellType === 'oil' ? 'oil' : 'condensate'} in ${period}`;
    }
    case 'gas_production': {
      const name = figures.wellType === 'oil' ? 'casinghead_gas_mcf' : 'gas_well_gas_mcf';
      frames.field(name, figures.gasMcf, confidence, unitSource);
      frames.check(
        'production_found',
        figures.missing.length === 0 && figures.wells.length > 0,
        figures.missing.length > 0 || figures.wells.length === 0
          ? noFigures
          : `${figures.gasMcf} mcf ${figures.wellType === 'oil' ? 'casinghead' : 'gas-well'} gas for ${period}`,
      );
      if (figures.gasMcf !== null)
        frames.check('whole_mcf_non_negative', figures.gasMcf >= 0, `${figures.gasMcf} mcf reported in whole mcf`);
      return figures.gasMcf === null
        ? `No gas production figures for ${period}`
        : `${figures.gasMcf} mcf ${figures.wellType === 'oil' ? 'casinghead gas' : 'gas-well gas'}`;
    }
    case 'gas_disposition': {
      const d = figures.dispositions;
      if (d === null || Object.keys(d).length === 0 || figures.gasMcf === null) {
        frames.table(['code', 'disposition', 'volume_mcf'], []);
        frames.check('dispositions_balance', false, `no gas disposition figures for ${period} in the graph`, 'warning');
        return 'Gas disposition not available for the period';
      }
      const codes = Object.keys(d).sort();
      frames.table(
        ['code', 'disposition', 'volume_mcf'],
        codes.map((code) => ({ code, disposition: DISPOSITION_CODES[code] ?? code, volume_mcf: d[code] })),
      );
      for (const code of codes) frames.field(`disposition_code_${code}_mcf`, d[code], confidence, unitSource);
      const total = codes.reduce((sum, code) => sum + d[code], 0);
      for (const c of formPrChecks({ period, gasMcf: figures.gasMcf, dispositions: d, authorizations: [] })) {
        if (c.key !== 'flaring_authorized_in_month') frames.check(c.key, c.passed, c.message, c.severity);
      }
      return `${total} mcf disposed under codes ${codes.join(', ')}`;
    }
    case 'flaring_authority': {
      const verdicts = ctx.flaring.map((subject) => ({
        subject,
        verdict: recordVerdict(frames, 'flaring_within_authorization', subject, today, period),
      }));
      let released = 0;
      for (const { subject, verdict } of verdicts) {
        const volume = Number(verdict?.facts.flared_mcf ?? 0) + Number(verdict?.facts.vented_mcf ?? 0);
        if (volume <= 0) continue;
        released += volume;
        const remarks = (ctx.remarks.get(subject.entity.entityId) ?? [])
          .filter((r) => (r.date ?? '').startsWith(period))
          .map((r) => r.remark ?? '');
        if (subject.entity.properties.form_pr_period === period && subject.entity.properties.authority_remark)
          remarks.push(subject.entity.properties.authority_remark);
        const remark = remarks.find((r) => (AUTHORITY_REMARKS as readonly string[]).includes(r)) ?? null;
        frames.field('authority_remark', remark, remark ? 0.9 : 0, `graph:Well/${subject.entity.entityId}`);
        frames.check(
          'authority_remark_present',
          remark !== null,
          remark
            ? `${subject.entity.entityId}: codes 10/11 carry authority remark ${remark}`
            : `${subject.entity.entityId}: ${volume} mcf under codes 10/11 without an authority remark (AR, AE, EP or EX)`,
        );
      }
      const authorized = formPrChecks({
        period,
        gasMcf: figures.gasMcf,
        dispositions: figures.dispositions,
        authorizations: unitAuthorizations(ctx),
      }).find((c) => c.key === 'flaring_authorized_in_month')!;
      frames.check(authorized.key, authorized.passed, authorized.message, authorized.severity);
      const worst =
        verdicts.map((v) => v.verdict?.color).find((c) => c === 'red') ??
        verdicts.map((v) => v.verdict?.color).find((c) => c === 'grey') ??
        null;
      if (verdicts.length === 0)
        frames.check('flaring_within_authorization', false, `no drilled well on ${unitName}`, 'warning');
      return worst === 'red'
        ? 'Flaring or venting outside a Rule 32 authorization'
        : worst === 'grey'
          ? `Flaring and venting in ${period} unknown for some wells`
          : released > 0
            ? `${released} mcf flared or vented within authorization`
            : 'Nothing flared or vented';
    }
    case 'filing_deadline': {
      const due = formPrDueDate(period);
      frames.field(
        'due_date',
        due,
        1,
        'rule: 16 TAC §3.58, last working day of the month after the production month (Texas state holidays excluded)',
      );
      const verdict = recordVerdict(frames, 'form_pr_status', ctx.production, today, period);
      const filed = typeof verdict?.facts.filed_through === 'string' && verdict.facts.filed_through >= period;
      const overdue = !filed && today > due;
      const daysLeft = Math.round((Date.parse(due) - Date.parse(today)) / 86_400_000);
      frames.check(
        'filed_before_due_date',
        !overdue,
        filed
          ? `filed (through ${verdict!.facts.filed_through}); was due ${due}`
          : overdue
            ? `overdue: due ${due}, ${-daysLeft} days ago`
            : `due ${due}, in ${daysLeft} days`,
        overdue ? 'error' : !filed && daysLeft <= 7 ? 'warning' : 'info',
      );
      const recorded = facts.deadlines.find((d) => d.properties.form === 'PR' && d.properties.period === period);
      if (recorded?.properties.deadline_date) {
        frames.check(
          'graph_deadline_matches',
          recorded.properties.deadline_date === due,
          `graph deadline ${recorded.properties.deadline_date}, computed ${due}`,
          'warning',
        );
      }
      return filed ? `Filed; was due ${due}` : `Due ${due}`;
    }
    default:
      frames.check('known_item', false, `no assessment defined for item ${key}`, 'warning');
      return 'Not assessed';
  }
}
