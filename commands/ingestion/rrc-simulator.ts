import { createHash } from 'node:crypto';
import { seededRandom } from '../../src/platform/samples/seeded-random';
import { COUNTIES, FIELDS, LEASE_NAMES, OPERATOR_WORDS } from '../../src/platform/samples/texas-facts';

/**
 * A stand-in for the Railroad Commission's public data (the scrape produces simulated data
 * until a real one is wired), shaped like the real data: API numbers `42-CCC-UUUUU` of the
 * district's counties, P-5 operators (6 digits), oil leases (5 digits within a district)
 * and gas well ids (6 digits), W-1 permits, Form PR production in whole bbl/mcf with gas
 * disposition codes 10 (flared) and 11 (vented) and their authority remark, and R-32
 * flaring authorizations. Everything is a pure function of the district (the "universe")
 * and the date range, so the same request always yields the same records.
 */
export const RRC_DATA_TYPES = ['wells', 'permits', 'production', 'flaring', 'operators', 'leases'] as const;
export type RrcDataType = (typeof RRC_DATA_TYPES)[number];
export const RRC_DISTRICTS = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '6E',
  '7B',
  '7C',
  '08',
  '8A',
  '8B',
  '09',
  '10',
] as const;

interface CountyFact {
  name: string;
  code: string;
}

/**
 * Counties per district: the seed table's Permian/Eagle Ford counties plus a few public
 * FIPS-coded counties for the other districts. District 8B's list is approximate (?).
 */
const EXTRA_COUNTIES: Record<string, CountyFact[]> = {
  '03': [
    { name: 'Harris', code: '201' },
    { name: 'Brazoria', code: '039' },
    { name: 'Fort Bend', code: '157' },
  ],
  '05': [
    { name: 'Freestone', code: '161' },
    { name: 'Limestone', code: '293' },
  ],
  '6E': [
    { name: 'Gregg', code: '183' },
    { name: 'Rusk', code: '401' },
  ],
  '7B': [
    { name: 'Shackelford', code: '417' },
    { name: 'Stephens', code: '429' },
  ],
  '8B': [
    { name: 'King', code: '269' },
    { name: 'Cottle', code: '101' },
  ],
  '10': [
    { name: 'Hutchinson', code: '233' },
    { name: 'Gray', code: '179' },
    { name: 'Ochiltree', code: '357' },
  ],
};

export function countiesOf(district: string): CountyFact[] {
  const seeded = Object.values(COUNTIES)
    .filter((c) => c.district === district)
    .map((c) => ({ name: c.name, code: c.code }));
  return [...seeded, ...(EXTRA_COUNTIES[district] ?? [])];
}

export interface DateRange {
  from: string;
  to: string;
}

export interface RrcWell {
  api_number: string;
  well_number: string;
  well_name: string;
  county: string;
  district: string;
  field_number: string;
  field_name: string;
  lease_key: string;
  operator_p5: string;
  well_type: 'oil' | 'gas';
  status: 'producing' | 'shut-in' | 'inactive';
  spud_date: string;
  completion_date: string;
  latitude: number;
  longitude: number;
}
export interface RrcOperator {
  p5_number: string;
  name: string;
  p5_status: 'active' | 'delinquent';
  p5_renewal_month: string;
}
export interface RrcLease {
  lease_key: string;
  lease_number: string;
  name: string;
  oil_gas_code: 'O' | 'G';
  district: string;
  county: string;
  field_number: string;
  field_name: string;
  operator_p5: string;
}
export interface RrcPermit {
  permit_number: string;
  api_number: string;
  form: 'W-1';
  type: string;
  operator_p5: string;
  issued_date: string;
  expiration_date: string;
  status: 'approved' | 'expired';
}
export interface RrcProduction {
  api_number: string;
  lease_key: string;
  reporting_month: string;
  oil_bbls: number;
  gas_mcf: number;
  water_bbls: number;
  disposition_code_10_mcf: number;
  disposition_code_11_mcf: number;
  authority_remark?: 'AR' | 'AE' | 'EP' | 'EX';
  producing_days: number;
}
export interface RrcFlaringAuthorization {
  auth_number: string;
  api_number: string;
  lease_key: string;
  form: 'R-32';
  authorized_mcf: number;
  issued_date: string;
  expiry_date: string;
  hearing_required: boolean;
}

export interface RrcRecords {
  wells: RrcWell[];
  operators: RrcOperator[];
  leases: RrcLease[];
  permits: RrcPermit[];
  production: RrcProduction[];
  flaring: RrcFlaringAuthorization[];
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const addDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * 86_400_000).toISOString().slice(0, 10);

/** Production months (YYYY-MM) whose first day lies in the range. */
export function monthsIn(range: DateRange): string[] {
  const months: string[] = [];
  const [fy, fm] = range.from.split('-').map(Number);
  let d = new Date(Date.UTC(fy, fm - 1, 1));
  if (d.toISOString().slice(0, 10) < range.from) d = new Date(Date.UTC(fy, fm, 1));
  while (d.toISOString().slice(0, 10) <= range.to && months.length < 36) {
    months.push(d.toISOString().slice(0, 7));
    d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  }
  return months;
}

/** Without a range: the three complete months before `now`. */
export function defaultRange(now: Date): DateRange {
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0));
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 3, 1));
  return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) };
}

const WELLS_PER_DISTRICT = 36;
const OPERATORS_PER_DISTRICT = 6;
const LEASES_PER_DISTRICT = 12;

/** The district's wells, leases and operators: fixed by the district alone. */
function universe(district: string) {
  const r = seededRandom(`rrc-universe|${district}`);
  const counties = countiesOf(district);
  const districtFields = FIELDS.filter((f) => f.counties.some((c) => COUNTIES[c]?.district === district));
  const fields = (
    districtFields.length > 0
      ? districtFields
      : [{ name: `${counties[0].name.toUpperCase()} (CONSOLIDATED)`, wellType: 'oil' as const }]
  ).map((f, i) => ({
    name: f.name,
    wellType: f.wellType,
    number: pad((createHash('sha256').update(f.name).digest().readUInt32BE(0) % 90_000_000) + 10_000_000 + i, 8),
  }));
  const districtBase = (RRC_DISTRICTS as readonly string[]).indexOf(district) + 1;
  const operators: RrcOperator[] = Array.from({ length: OPERATORS_PER_DISTRICT }, (_, i) => ({
    p5_number: pad(districtBase * 50_000 + 100_000 + i * 731 + r.int(0, 700), 6),
    name: `${r.pick(OPERATOR_WORDS.first)} ${r.pick(OPERATOR_WORDS.second)} ${r.pick(OPERATOR_WORDS.suffix)}`,
    p5_status: r.chance(0.9) ? 'active' : 'delinquent',
    p5_renewal_month: pad(r.int(1, 12), 2),
  }));
  const leases: RrcLease[] = Array.from({ length: LEASES_PER_DISTRICT }, (_, i) => {
    const field = fields[i % fields.length];
    const county = counties[i % counties.length];
    const code = field.wellType === 'oil' ? 'O' : 'G';
    const number =
      code === 'O' ? pad(10_000 + i * 613 + r.int(0, 600), 5) : pad(200_000 + i * 4_111 + r.int(0, 4_000), 6);
    return {
      lease_key: `${code}-${district}-${number}`,
      lease_number: number,
      name: `${r.pick(LEASE_NAMES)} ${r.int(1, 99)}`,
      oil_gas_code: code,
      district,
      county: county.name,
      field_number: field.number,
      field_name: field.name,
      operator_p5: operators[i % operators.length].p5_number,
    };
  });
  const used = new Set<string>();
  const wells: RrcWell[] = Array.from({ length: WELLS_PER_DISTRICT }, (_, i) => {
    const lease = leases[i % leases.length];
    const county = counties.find((c) => c.name === lease.county)!;
    let api: string;
    do api = `42-${county.code}-${pad(r.int(30_000, 45_999), 5)}`;
    while (used.has(api));
    used.add(api);
    const spud = addDays('2012-01-01', r.int(0, 4_700));
    const base = Object.values(COUNTIES).find((c) => c.code === county.code);
    return {
      api_number: api,
      well_number: `${r.int(1, 20)}${r.chance(0.5) ? 'H' : ''}`,
      well_name: `${lease.name} ${r.int(1, 20)}`,
      county: county.name,
      district,
      field_number: lease.field_number,
      field_name: lease.field_name,
      lease_key: lease.lease_key,
      operator_p5: lease.operator_p5,
      well_type: lease.oil_gas_code === 'O' ? 'oil' : 'gas',
      status: r.chance(0.8) ? 'producing' : r.chance(0.5) ? 'shut-in' : 'inactive',
      spud_date: spud,
      completion_date: addDays(spud, r.int(25, 90)),
      latitude: Number(((base?.lat ?? 31.5) + r.int(-2500, 2500) / 10_000).toFixed(5)),
      longitude: Number(((base?.lon ?? -100) + r.int(-2500, 2500) / 10_000).toFixed(5)),
    };
  });
  return { operators, leases, wells };
}

/**
 * The records of the requested types. Permits are those issued within the range, production
 * one Form PR row per producing well and month of the range, flaring the R-32 authorizations
 * in force at some time in the range.
 */
export function simulateRrc(district: string, types: readonly RrcDataType[], range: DateRange): RrcRecords {
  const { operators, leases, wells } = universe(district);
  const want = new Set(types);
  const out: RrcRecords = { wells: [], operators: [], leases: [], permits: [], production: [], flaring: [] };
  if (want.has('wells')) out.wells = wells;
  if (want.has('operators')) out.operators = operators;
  if (want.has('leases')) out.leases = leases;
  if (want.has('permits')) {
    // Permits per well are a function of the well and the year, so overlapping ranges agree.
    for (const well of wells) {
      for (let year = Number(range.from.slice(0, 4)); year <= Number(range.to.slice(0, 4)); year++) {
        const r = seededRandom(`rrc-permit|${well.api_number}|${year}`);
        if (!r.chance(0.25)) continue;
        const issued = `${year}-${pad(r.int(1, 12), 2)}-${pad(r.int(1, 28), 2)}`;
        if (issued < range.from || issued > range.to) continue;
        const expires = addDays(issued, 730);
        out.permits.push({
          permit_number: pad(
            700_000 + (createHash('sha256').update(`${well.api_number}|${year}`).digest().readUInt32BE(0) % 299_999),
            6,
          ),
          api_number: well.api_number,
          form: 'W-1',
          type: r.pick([
            'W-1 drilling permit (new drill)',
            'W-1 drilling permit (recompletion)',
            'W-1 drilling permit (horizontal)',
          ]),
          operator_p5: well.operator_p5,
          issued_date: issued,
          expiration_date: expires,
          status: expires < range.to ? 'expired' : 'approved',
        });
      }
    }
  }
  if (want.has('production')) {
    for (const month of monthsIn(range)) {
      for (const well of wells.filter((w) => w.status !== 'inactive')) {
        const r = seededRandom(`rrc-pr|${well.api_number}|${month}`);
        const days = well.status === 'shut-in' ? r.int(0, 10) : r.int(26, 31);
        const oil = well.well_type === 'oil' ? r.int(15, 850) * days : r.int(0, 3) * days;
        const gas = well.well_type === 'oil' ? Math.round(oil * (r.int(8, 30) / 10)) : r.int(200, 4_000) * days;
        const flared = r.chance(0.2) ? r.int(5, 120) * Math.max(days, 1) : 0;
        const vented = r.chance(0.05) ? r.int(1, 20) * Math.max(days, 1) : 0;
        out.production.push({
          api_number: well.api_number,
          lease_key: well.lease_key,
          reporting_month: month,
          oil_bbls: oil,
          gas_mcf: gas,
          water_bbls: Math.round(oil * (r.int(5, 40) / 10)),
          disposition_code_10_mcf: flared,
          disposition_code_11_mcf: vented,
          // Volumes under codes 10/11 need an authority remark (Form PR instructions).
          ...(flared + vented > 0 ? { authority_remark: r.pick(['AR', 'AE', 'EP', 'EX'] as const) } : {}),
          producing_days: days,
        });
      }
    }
  }
  if (want.has('flaring')) {
    for (const well of wells) {
      const r = seededRandom(`rrc-r32|${well.api_number}`);
      if (!r.chance(0.3)) continue;
      // Staggered 180-day administrative exceptions from the well's completion onwards.
      const span = r.pick([45, 90, 180]);
      for (
        let start = addDays(well.completion_date, 10), n = 0;
        start <= range.to && n < 400;
        start = addDays(start, span + 1), n++
      ) {
        const expiry = addDays(start, span);
        if (expiry < range.from) continue;
        out.flaring.push({
          auth_number: `R32-${pad(createHash('sha256').update(`${well.api_number}|${start}`).digest().readUInt32BE(0) % 1_000_000, 6)}`,
          api_number: well.api_number,
          lease_key: well.lease_key,
          form: 'R-32',
          authorized_mcf: r.pick([50, 100, 250, 500, 1000]),
          issued_date: start,
          expiry_date: expiry,
          hearing_required: span > 180,
        });
      }
    }
  }
  return out;
}
