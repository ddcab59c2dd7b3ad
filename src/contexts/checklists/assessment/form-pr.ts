import type { VertexView } from '../../../../queries/graph/entities';
import { ItemFrames } from './frames';
import { num, productionHistory, WellFacts } from './well-facts';
import { daysInMonth, formPrDueDate } from './working-days';

/**
 * Form PR (monthly production report) computed from the well's production in the graph:
 * oil or condensate in bbl, casinghead gas (oil wells) or gas-well gas (gas wells) in mcf,
 * gas disposition by code (01 lease fuel, 02 transmission line, 10 flared, 11 vented), and
 * the Rule 32 checks on codes 10/11 (authority remark AR/AE/EP/EX; flared rate within the
 * active authorization, in mcf/d over the producing days, as the rule_32 pack counts).
 */
export const AUTHORITY_REMARKS = ['AR', 'AE', 'EP', 'EX'] as const;

export interface FormPrContext {
  facts: WellFacts;
  period: string;
  today: string;
}

export interface FormPrFigures {
  period: string;
  wellType: 'oil' | 'gas';
  oilBbl: number | null;
  condensateBbl: number | null;
  casingheadMcf: number | null;
  gasWellGasMcf: number | null;
  /** Code → mcf. */
  dispositions: Record<string, number>;
  producingDays: number | null;
  /** Where the month's figures came from: the well's current month, or its 12-month history. */
  basis: 'current_month' | 'history' | 'none';
}

const source = (v: VertexView) => `graph:${v.label}/${v.entity_id}`;

/** The month's figures for the form, or nulls when the graph holds nothing for the period. */
export function formPrFigures(facts: WellFacts, period: string): FormPrFigures {
  const p = facts.well.properties;
  const wellType = p.well_type === 'gas' ? 'gas' : 'oil';
  const current = p.form_pr_period === period;
  const history = productionHistory(p).find((m) => m.period === period);
  const basis = current ? 'current_month' : history ? 'history' : 'none';
  const liquid = current ? num(p.production_oil_bbls) ?? 0 : history ? history.oil_bbls : null;
  const gas = current ? num(p.production_casinghead_mcf) ?? num(p.production_gas_mcf) ?? 0 : history ? history.gas_mcf : null;
  const condensate = current ? num(p.production_condensate_bbls) : null;
  const dispositions: Record<string, number> = {};
  if (current) {
    const codes: [string, string][] = [['01', 'gas_used_on_lease_mcf'], ['02', 'gas_sold_mcf'], ['10', 'gas_flared_mcf'], ['11', 'gas_vented_mcf']];
    for (const [code, property] of codes) {
      const v = num(p[property]);
      if (v !== null) dispositions[code] = v;
    }
  }
  const whole = (v: number | null) => (v === null ? null : Math.round(v));
  return {
    period,
    wellType,
    oilBbl: wellType === 'oil' ? whole(liquid) : null,
    condensateBbl: wellType === 'gas' ? whole(condensate ?? liquid) : null,
    casingheadMcf: wellType === 'oil' ? whole(gas) : null,
    gasWellGasMcf: wellType === 'gas' ? whole(gas) : null,
    dispositions,
    producingDays: current ? num(p.producing_days) : null,
    basis,
  };
}

const DISPOSITION_NAMES: Record<string, string> = {
  '01': 'lease fuel',
  '02': 'transmission line',
  '03': 'processing plant',
  '05': 'gas lift',
  '06': 'repressure',
  '07': 'carbon black',
  '08': 'storage injection',
  '09': 'shrinkage',
  '10': 'flared',
  '11': 'vented',
};

export function assessFormPrItem(key: string, frames: ItemFrames, ctx: FormPrContext): string {
  const { facts, period, today } = ctx;
  const well = facts.well;
  const p = well.properties;
  const figures = formPrFigures(facts, period);
  const confidence = figures.basis === 'current_month' ? 0.95 : figures.basis === 'history' ? 0.8 : 0;
  const producedGas = figures.casingheadMcf ?? figures.gasWellGasMcf;

  switch (key) {
    case 'well_identification': {
      const rows = [
        { field: 'api_number', value: p.api_number ?? well.entity_id },
        { field: 'operator', value: p.operator ?? facts.operator?.name ?? null },
        { field: 'operator_p5_number', value: facts.operator?.p5_number ?? null },
        { field: 'district', value: p.district ?? facts.lease?.district ?? null },
        { field: 'field', value: p.field ?? facts.field?.name ?? null },
        { field: 'lease', value: p.lease ?? facts.lease?.name ?? null },
        { field: 'lease_number', value: facts.lease?.lease_number ?? null },
        { field: 'well_number', value: p.well_number ?? null },
        { field: 'production_month', value: period },
      ];
      frames.table(['field', 'value'], rows);
      for (const row of rows) frames.field(row.field, row.value, row.value === null ? 0 : 1, source(well));
      const api = p.api_number ?? well.entity_id;
      frames.check('api_number_format', /^42-\d{3}-\d{5}(-\d{2}){0,2}$/.test(api), /^42-\d{3}-\d{5}/.test(api) ? `API number ${api} is a Texas API number` : `API number ${api} is not of the form 42-CCC-UUUUU`);
      const p5 = facts.operator?.p5_number ?? null;
      frames.check('operator_p5_number', !!p5 && /^\d{6}$/.test(p5), p5 ? `operator P-5 number ${p5}` : 'no operator P-5 number in the graph', p5 ? 'info' : 'warning');
      return `Well ${api} on lease ${p.lease ?? '?'} (${p.field ?? 'unknown field'}), production month ${period}`;
    }
    case 'oil_production': {
      const history = productionHistory(p);
      frames.table(['period', 'oil_bbls', 'gas_mcf'], history.map((m) => ({ period: m.period, oil_bbls: m.oil_bbls, gas_mcf: m.gas_mcf })));
      const name = figures.wellType === 'oil' ? 'oil_production_bbl' : 'condensate_production_bbl';
      const value = figures.wellType === 'oil' ? figures.oilBbl : figures.condensateBbl;
      frames.field(name, value, confidence, source(well));
      frames.check('production_found', value !== null, value === null ? `no production figures for ${period} in the graph` : `${value} bbl for ${period} (${figures.basis.replace('_', ' ')})`);
      if (value !== null) frames.check('whole_barrels_non_negative', Number.isInteger(value) && value >= 0, `${value} bbl reported in whole barrels`);
      return value === null ? `No liquid production found for ${period}` : `${value} bbl ${figures.wellType === 'oil' ? 'oil' : 'condensate'} in ${period}`;
    }
    case 'gas_production': {
      const name = figures.wellType === 'oil' ? 'casinghead_gas_mcf' : 'gas_well_gas_mcf';
      frames.field(name, producedGas, confidence, source(well));
      frames.check('production_found', producedGas !== null, producedGas === null ? `no gas figures for ${period} in the graph` : `${producedGas} mcf ${figures.wellType === 'oil' ? 'casinghead' : 'gas-well'} gas for ${period}`);
      if (producedGas !== null) frames.check('whole_mcf_non_negative', Number.isInteger(producedGas) && producedGas >= 0, `${producedGas} mcf reported in whole mcf`);
      return producedGas === null ? `No gas production found for ${period}` : `${producedGas} mcf ${figures.wellType === 'oil' ? 'casinghead gas' : 'gas-well gas'}`;
    }
    case 'gas_disposition': {
      const codes = Object.keys(figures.dispositions).sort();
      frames.table(['code', 'disposition', 'volume_mcf'], codes.map((code) => ({ code, disposition: DISPOSITION_NAMES[code] ?? code, volume_mcf: figures.dispositions[code] })));
      for (const code of codes) frames.field(`disposition_code_${code}_mcf`, figures.dispositions[code], confidence, source(well));
      if (codes.length === 0 || producedGas === null) {
        frames.check('dispositions_balance', false, `no gas disposition figures for ${period} in the graph`, 'warning');
        return 'Gas disposition not available for the period';
      }
      const total = codes.reduce((sum, code) => sum + figures.dispositions[code], 0);
      frames.check('dispositions_balance', Math.abs(total - producedGas) <= 1, `dispositions total ${total} mcf against ${producedGas} mcf produced`);
      frames.check('no_code_04', !codes.includes('04'), 'code 04 was replaced by 10 (flared) and 11 (vented) from September 2021');
      return `${total} mcf disposed under codes ${codes.join(', ')}`;
    }
    case 'flaring_authority': {
      const released = (figures.dispositions['10'] ?? 0) + (figures.dispositions['11'] ?? 0);
      frames.field('flared_mcf_code_10', figures.dispositions['10'] ?? 0, confidence, source(well));
      frames.field('vented_mcf_code_11', figures.dispositions['11'] ?? 0, confidence, source(well));
      if (released === 0) {
        frames.check('flaring_within_authorization', true, `no gas flared or vented in ${period}`);
        return 'Nothing flared or vented';
      }
      const remarks = facts.flaringEvents.filter((e) => (e.properties.date ?? '').startsWith(period)).map((e) => e.properties.authority_remark ?? '');
      const remark = remarks.find((r) => (AUTHORITY_REMARKS as readonly string[]).includes(r)) ?? null;
      frames.field('authority_remark', remark, remark ? 0.9 : 0, facts.flaringEvents[0] ? source(facts.flaringEvents[0]) : source(well));
      frames.check('authority_remark_present', remark !== null, remark ? `codes 10/11 carry authority remark ${remark}` : `${released} mcf under codes 10/11 without an authority remark (AR, AE, EP or EX)`);
      const periodEnd = `${period}-${String(daysInMonth(period)).padStart(2, '0')}`;
      const active = facts.authorizations.filter((a) => (a.properties.expiry_date ?? '9999-12-31').slice(0, 10) >= `${period}-01` && a.properties.status !== 'revoked');
      const days = figures.producingDays && figures.producingDays > 0 ? figures.producingDays : daysInMonth(period);
      const rate = Math.round((released / days) * 10) / 10;
      if (active.length === 0) {
        frames.check('flaring_within_authorization', false, `${released} mcf flared or vented (${rate} mcf/d) with no Rule 32 authorization in force in ${period}`);
        return `Flaring of ${released} mcf without an authorization`;
      }
      const authorized = active.reduce((sum, a) => sum + (num(a.properties.authorized_mcf) ?? 0), 0);
      frames.table(['auth_number', 'authorized_mcf_per_day', 'expiry_date', 'status'], active.map((a) => ({ auth_number: a.properties.auth_number ?? a.entity_id, authorized_mcf_per_day: num(a.properties.authorized_mcf), expiry_date: a.properties.expiry_date ?? null, status: a.properties.status ?? null })));
      frames.check('flaring_within_authorization', rate <= authorized, `${rate} mcf/d flared or vented over ${days} days against ${authorized} mcf/d authorized (${active.map((a) => a.entity_id).join(', ')})`);
      const expiring = active.map((a) => (a.properties.expiry_date ?? '').slice(0, 10)).filter(Boolean).sort()[0];
      if (expiring && expiring < periodEnd) frames.check('authorization_in_force_all_month', false, `authorization expired on ${expiring}, before the end of ${period}`);
      else if (expiring && expiring <= addDaysIso(today, 30)) frames.check('authorization_expiry', true, `authorization expires on ${expiring}, within 30 days`, 'warning');
      return `${rate} of ${authorized} mcf/d authorized`;
    }
    case 'filing_deadline': {
      const due = formPrDueDate(period);
      frames.field('due_date', due, 1, 'rule: last working day of the month after the production month');
      const overdue = today > due;
      const daysLeft = Math.round((Date.parse(due) - Date.parse(today)) / 86_400_000);
      frames.check('filed_before_due_date', !overdue, overdue ? `overdue: due ${due}, ${-daysLeft} days ago` : `due ${due}, in ${daysLeft} days`, overdue ? 'error' : daysLeft <= 7 ? 'warning' : 'info');
      const recorded = facts.deadlines.find((d) => d.properties.form === 'PR' && d.properties.period === period);
      if (recorded?.properties.deadline_date) {
        frames.check('graph_deadline_matches', recorded.properties.deadline_date === due, `graph deadline ${recorded.properties.deadline_date}, computed ${due}`, 'warning');
      }
      return `Due ${due}`;
    }
    default:
      frames.check('known_item', false, `no assessment defined for item ${key}`, 'warning');
      return 'Not assessed';
  }
}

const addDaysIso = (isoDate: string, days: number) => new Date(Date.parse(isoDate) + days * 86_400_000).toISOString().slice(0, 10);
