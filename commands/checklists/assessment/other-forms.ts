import type { Knex } from 'knex';
import type { VertexView } from '../../../queries/graph/entities';
import { completionReportDue } from '../../compliance/packs/drilling';
import { TEXAS_RULES } from '../../compliance/rules/texas-rules';
import { type ItemFrames } from './frames';
import { loadRuleSubject, recordVerdict, type RuleSubject } from './rule-verdicts';
import { num, productionHistory, type WellFacts } from './well-facts';
import { addDays } from './working-days';

/** The compliance packs' subjects a well's R-32, W-1, W-2/G-1 and W-3X items are judged with. */
export type OtherSubjects = Partial<
  Record<'rule_32' | 'rule_37' | 'drilling' | 'inactive_wells' | 'well_tests' | 'operators', RuleSubject | null>
>;

export async function loadOtherSubjects(knex: Knex, tenantId: string, facts: WellFacts): Promise<OtherSubjects> {
  const id = facts.well.entity_id;
  const domains = ['rule_32', 'rule_37', 'drilling', 'inactive_wells', 'well_tests'] as const;
  const loaded = await Promise.all(domains.map((d) => loadRuleSubject(knex, tenantId, d, 'Well', id)));
  const operatorId = facts.operator?.entity_id;
  const operators = operatorId ? await loadRuleSubject(knex, tenantId, 'operators', 'Operator', operatorId) : null;
  return { ...Object.fromEntries(domains.map((d, i) => [d, loaded[i]])), operators };
}

/** Records the pack's verdict as the item's check when the graph has the subject. */
const judged = (frames: ItemFrames, check: string, subject: RuleSubject | null | undefined, today: string) =>
  subject ? recordVerdict(frames, check, subject, today) : null;

/**
 * R-32, W-1, W-2/G-1 and W-3X items, assessed against the graph with the Rule 32, 37, 38,
 * 14/15 facts of 16 TAC chapter 3 (docs/compliance.md). Where the graph cannot know (plats, pooling, H2S) the item gets
 * an informational check telling the preparer what to attach.
 */
const source = (v: VertexView) => `graph:${v.label}/${v.entity_id}`;
const date = (v: string | undefined) => (v ? v.slice(0, 10) : null);
const yearsBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / (365.25 * 86_400_000);

export function assessOtherItem(
  key: string,
  frames: ItemFrames,
  facts: WellFacts,
  today: string,
  subjects: OtherSubjects = {},
): string {
  const well = facts.well;
  const p = well.properties;
  switch (key) {
    // R-32
    case 'flaring_site': {
      const rows = [
        { field: 'lease', value: p.lease ?? facts.lease?.name ?? null },
        { field: 'well', value: p.api_number ?? well.entity_id },
        { field: 'field', value: p.field ?? facts.field?.name ?? null },
        { field: 'district', value: p.district ?? null },
        { field: 'latitude', value: num(p.latitude) },
        { field: 'longitude', value: num(p.longitude) },
      ];
      frames.table(['field', 'value'], rows);
      for (const r of rows) frames.field(r.field, r.value, r.value === null ? 0 : 1, source(well));
      frames.check(
        'location_known',
        num(p.latitude) !== null && num(p.longitude) !== null,
        num(p.latitude) !== null ? 'site coordinates from the graph' : 'no coordinates for the site',
        'warning',
      );
      return `Site ${p.lease ?? well.entity_id}, district ${p.district ?? '?'}`;
    }
    case 'flaring_history': {
      const events = [...facts.flaringEvents].sort((a, b) =>
        (a.properties.date ?? '').localeCompare(b.properties.date ?? ''),
      );
      frames.table(
        ['date', 'disposition_code', 'volume_mcf', 'authority_remark'],
        events.map((e) => ({
          date: date(e.properties.date),
          disposition_code: e.properties.disposition_code ?? null,
          volume_mcf: num(e.properties.volume_mcf),
          authority_remark: e.properties.authority_remark ?? null,
        })),
      );
      const flared = num(p.gas_flared_mcf) ?? 0;
      const vented = num(p.gas_vented_mcf) ?? 0;
      const days = num(p.producing_days) || 30;
      const rate = Math.round(((flared + vented) / days) * 10) / 10;
      frames.field('current_flared_mcf_per_day', rate, 0.9, source(well));
      frames.check(
        'codes_10_11_only',
        events.every((e) => ['10', '11'].includes(e.properties.disposition_code ?? '')),
        'flared and vented volumes use codes 10 and 11',
      );
      return `${flared + vented} mcf released last month (${rate} mcf/d)`;
    }
    case 'existing_authorizations': {
      frames.table(
        ['auth_number', 'authorized_mcf_per_day', 'expiry_date', 'status'],
        facts.authorizations.map((a) => ({
          auth_number: a.properties.auth_number ?? a.entity_id,
          authorized_mcf_per_day: num(a.properties.authorized_mcf),
          expiry_date: date(a.properties.expiry_date),
          status: a.properties.status ?? null,
        })),
      );
      const active = facts.authorizations.filter(
        (a) => (date(a.properties.expiry_date) ?? '9999-12-31') >= today && a.properties.status !== 'revoked',
      );
      const soon = active
        .map((a) => date(a.properties.expiry_date))
        .filter((d): d is string => !!d)
        .sort()[0];
      frames.check(
        'authorization_in_force',
        active.length > 0,
        active.length > 0
          ? `${active.length} authorization(s) in force today`
          : facts.authorizations.length > 0
            ? 'every authorization has expired'
            : 'no authorization on record',
        active.length > 0 ? 'info' : 'warning',
      );
      // "Expires soon" only for an authorization still valid today (an expired one is not "expiring").
      if (soon)
        frames.check(
          'authorization_expiry',
          soon > addDays(today, TEXAS_RULES.expiresSoonDays),
          soon > addDays(today, TEXAS_RULES.expiresSoonDays)
            ? `earliest expiry ${soon}`
            : `authorization expires on ${soon}, within ${TEXAS_RULES.expiresSoonDays} days`,
          soon > addDays(today, TEXAS_RULES.expiresSoonDays) ? 'info' : 'warning',
        );
      judged(frames, 'rule_32', subjects.rule_32, today);
      return `${facts.authorizations.length} authorization(s) on record`;
    }
    case 'volume_and_duration': {
      const flared = (num(p.gas_flared_mcf) ?? 0) + (num(p.gas_vented_mcf) ?? 0);
      const rate = Math.round((flared / (num(p.producing_days) || 30)) * 10) / 10;
      frames.field('requested_mcf_per_day', rate, 0.6, source(well));
      frames.field('administrative_limit_days', 180, 1, 'rule: 16 TAC §3.32 administrative exception');
      frames.check(
        'no_end_date_eligible',
        rate <= 50,
        rate <= 50
          ? `${rate} mcf/d: 50 mcf/d or less may be approved without an end date`
          : `${rate} mcf/d: above 50 mcf/d needs an end date`,
        'info',
      );
      frames.check(
        'documentation_past_45_days',
        true,
        'a request beyond 45 days needs additional documentation; beyond 180 days a hearing',
        'info',
      );
      return `${rate} mcf/d requested`;
    }
    case 'reason_and_alternatives': {
      frames.check(
        'reason_stated',
        false,
        'state the reason (no pipeline connection, capacity, testing) and the alternatives considered',
        'warning',
      );
      return 'Reason and alternatives to be written by the preparer';
    }
    // W-1
    case 'operator_p5': {
      const op = facts.operator;
      frames.table(
        ['operator', 'p5_number', 'p5_status'],
        op ? [{ operator: op.name ?? null, p5_number: op.p5_number ?? null, p5_status: op.p5_status ?? null }] : [],
      );
      if (op?.p5_number) frames.field('operator_p5_number', op.p5_number, 1, 'graph:Operator');
      const active = (op?.p5_status ?? '').toLowerCase() === 'active';
      frames.check('p5_current', active, op ? `P-5 status ${op.p5_status ?? 'unknown'}` : 'no operator in the graph');
      return op ? `${op.name} P-5 ${op.p5_number ?? '?'}` : 'Operator unknown';
    }
    case 'location_and_plat': {
      frames.table(
        ['county', 'district', 'latitude', 'longitude'],
        [
          {
            county: p.county ?? null,
            district: p.district ?? null,
            latitude: num(p.latitude),
            longitude: num(p.longitude),
          },
        ],
      );
      frames.check('plat_attached', false, 'attach the location plat (survey, abstract, lease lines)', 'warning');
      return `${p.county ?? '?'} County, district ${p.district ?? '?'}`;
    }
    case 'spacing_rule_37': {
      frames.table(
        ['offset_well', 'distance_ft', 'same_horizon'],
        facts.offsets.map((o) => ({
          offset_well: o.vertex.entity_id,
          distance_ft: o.distanceFt,
          same_horizon: o.sameHorizon,
        })),
      );
      const close = facts.offsets.filter((o) => o.sameHorizon && o.distanceFt !== null && o.distanceFt < 1200);
      judged(frames, 'rule_37', subjects.rule_37, today);
      frames.check(
        'between_well_spacing_1200_ft',
        close.length === 0,
        close.length === 0
          ? 'no same-horizon well closer than 1,200 ft'
          : `closer than 1,200 ft: ${close.map((o) => `${o.vertex.entity_id} (${o.distanceFt} ft)`).join(', ')}; a Rule 37 exception is needed`,
      );
      frames.check('lease_line_467_ft', true, 'lease-line distance (467 ft) is taken from the plat', 'info');
      return close.length === 0 ? 'Spacing met' : `${close.length} offset(s) inside 1,200 ft`;
    }
    case 'density_w_1a': {
      frames.check(
        'acreage_against_density',
        true,
        `lease acreage ${facts.lease?.acres ?? 'not in the graph'}; file W-1A if substandard`,
        'info',
      );
      return 'Density to confirm against the field rules';
    }
    case 'pooling_p_12':
      frames.check('pooling_needed', true, 'attach P-12 only when separately owned tracts are pooled', 'info');
      return 'P-12 when pooled';
    case 'sour_gas_h_9':
      frames.check('h2s_expected', true, 'attach H-9 where hydrogen sulfide is expected (Rule 36)', 'info');
      return 'H-9 when sour gas is expected';
    case 'permit_status': {
      frames.table(
        ['permit_number', 'form', 'status', 'issued_date', 'expiration_date'],
        facts.permits.map((x) => ({
          permit_number: x.properties.permit_number ?? x.entity_id,
          form: x.properties.form ?? null,
          status: x.properties.status ?? null,
          issued_date: date(x.properties.issued_date),
          expiration_date: date(x.properties.expiration_date),
        })),
      );
      for (const permit of facts.permits) {
        const issued = date(permit.properties.issued_date);
        const expires = date(permit.properties.expiration_date) ?? (issued ? addDays(issued, 730) : null);
        if (expires)
          frames.check(
            'permit_not_expired',
            expires >= today,
            `permit ${permit.entity_id} expires ${expires}`,
            expires >= today ? 'info' : 'error',
          );
      }
      if (facts.permits.length === 0)
        frames.check('permit_on_record', true, 'no permit on record yet: this application creates it', 'info');
      else judged(frames, 'drilling', subjects.drilling, today);
      return `${facts.permits.length} permit(s) on record`;
    }
    // W-2 / G-1
    case 'well_record': {
      const form = p.well_type === 'gas' ? 'G-1' : 'W-2';
      frames.table(
        ['api_number', 'well_type', 'spud_date', 'completion_date', 'form'],
        [
          {
            api_number: p.api_number ?? well.entity_id,
            well_type: p.well_type ?? null,
            spud_date: date(p.spud_date),
            completion_date: date(p.completion_date),
            form,
          },
        ],
      );
      frames.field('completion_form', form, 1, source(well));
      frames.check(
        'completion_date_known',
        !!p.completion_date,
        p.completion_date ? `completed ${date(p.completion_date)}` : 'completion date not in the graph',
        'warning',
      );
      return `${form} for ${p.api_number ?? well.entity_id}`;
    }
    case 'completion_deadline': {
      const completed = date(p.completion_date);
      if (!completed) {
        frames.check(
          'report_due',
          false,
          'completion date unknown: due 90 days after completion or 150 days after drilling ends, whichever is earlier',
          'warning',
        );
        return 'Deadline unknown';
      }
      const due = completionReportDue(TEXAS_RULES, completed, date(p.drilling_end_date))!;
      frames.field(
        'due_date',
        due,
        p.drilling_end_date ? 1 : 0.8,
        'rule: 16 TAC §3.16, 90 days after completion or 150 days after drilling, earlier, on a working day',
      );
      frames.check('filed_before_due_date', today <= due, today <= due ? `due ${due}` : `overdue since ${due}`);
      return `Due ${due}`;
    }
    case 'initial_potential': {
      frames.table(
        ['oil_bbl_per_day', 'gas_mcf_per_day', 'water_bbl_per_day'],
        [
          {
            oil_bbl_per_day: num(p.ip_oil_bbl_per_day),
            gas_mcf_per_day: num(p.ip_gas_mcf_per_day),
            water_bbl_per_day: num(p.ip_water_bbl_per_day),
          },
        ],
      );
      const first = productionHistory(p)[0];
      if (first) frames.field('first_month_oil_bbl', first.oil_bbls, 0.5, source(well));
      frames.check(
        'potential_test_recorded',
        num(p.ip_oil_bbl_per_day) !== null || num(p.ip_gas_mcf_per_day) !== null,
        'potential test figures',
        'warning',
      );
      return 'Potential test';
    }
    case 'producing_interval': {
      frames.table(
        ['formation', 'type'],
        facts.formations.map((f) => ({ formation: f.name ?? null, type: f.type ?? null })),
      );
      frames.field('lateral_length_ft', num(p.lateral_length_ft), 1, source(well));
      frames.check(
        'formation_known',
        facts.formations.length > 0,
        facts.formations.length > 0
          ? `completed in ${facts.formations.map((f) => f.name).join(', ')}`
          : 'no formation in the graph',
        'warning',
      );
      return facts.formations.map((f) => f.name).join(', ') || 'Formation unknown';
    }
    case 'casing_and_cementing':
      frames.check('w_15_attached', false, 'attach the W-15 cementing report', 'warning');
      return 'W-15 to attach';
    case 'attachments_logs': {
      const horizontal = (num(p.lateral_length_ft) ?? 0) > 0;
      frames.check(
        'directional_survey',
        true,
        horizontal ? 'horizontal well: attach the directional survey' : 'vertical well: no directional survey needed',
        'info',
      );
      return 'Logs and surveys';
    }
    // W-3X
    case 'inactive_status': {
      const history = productionHistory(p);
      frames.table(
        ['period', 'oil_bbls', 'gas_mcf'],
        history.map((m) => ({ period: m.period, oil_bbls: m.oil_bbls, gas_mcf: m.gas_mcf })),
      );
      let idle = 0;
      for (const m of [...history].reverse()) {
        if (m.oil_bbls > 0 || m.gas_mcf > 0) break;
        idle++;
      }
      frames.field('months_without_production', idle, history.length > 0 ? 0.9 : 0.3, source(well));
      judged(frames, 'inactive_wells', subjects.inactive_wells, today);
      frames.check(
        'inactive_12_months',
        idle >= 12 || p.status === 'inactive',
        idle >= 12
          ? `${idle} months without production: inactive, plugging or an extension is required`
          : `${idle} months without production in the last 12`,
        'info',
      );
      return `${idle} idle months (status ${p.status ?? '?'})`;
    }
    case 'h_15_test': {
      const spud = date(p.spud_date);
      const age = spud ? Math.floor(yearsBetween(spud, today)) : null;
      frames.field('well_age_years', age, spud ? 1 : 0, source(well));
      const h15 = facts.deadlines.find((d) => (d.properties.form ?? '') === 'H-15');
      if (h15?.properties.deadline_date)
        frames.field('h15_due_date', date(h15.properties.deadline_date), 1, source(h15));
      const needed = age !== null && age > 25;
      frames.check(
        'h15_required',
        true,
        needed
          ? `well is ${age} years old: an annual H-15 fluid level test is required`
          : `well is ${age ?? '?'} years old: no H-15 needed`,
        needed ? 'warning' : 'info',
      );
      judged(frames, 'well_tests', subjects.well_tests, today);
      if (h15?.properties.deadline_date)
        frames.check(
          'h15_not_overdue',
          date(h15.properties.deadline_date)! >= today,
          `H-15 due ${date(h15.properties.deadline_date)}`,
        );
      return needed ? 'H-15 required' : 'H-15 not required';
    }
    case 'extension_basis': {
      const op = facts.operator;
      frames.check(
        'p5_current',
        (op?.p5_status ?? '').toLowerCase() === 'active',
        `P-5 status ${op?.p5_status ?? 'unknown'}; renewal is denied while Rule 15 requirements are unmet`,
      );
      judged(frames, 'p5_renewal', subjects.operators, today);
      return 'Extension basis and P-5 standing';
    }
    case 'return_to_active': {
      const last3 = productionHistory(p).slice(-3);
      const qualifies = last3.length === 3 && last3.every((m) => m.oil_bbls >= 5 || m.gas_mcf >= 50);
      frames.check(
        'return_to_active_criteria',
        true,
        qualifies
          ? 'the last 3 months each reached 5 bbl or 50 mcf: the well can return to active'
          : 'the last 3 months do not each reach 5 bbl or 50 mcf',
        'info',
      );
      return qualifies ? 'Meets return-to-active' : 'Does not meet return-to-active';
    }
    default:
      frames.check('known_item', false, `no assessment defined for item ${key}`, 'warning');
      return 'Not assessed';
  }
}
