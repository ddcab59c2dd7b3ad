import { randomUUID } from 'node:crypto';
import type { ImportedEdge, ImportedVertex } from '../../../streams/graph/graph-import';
import type { Properties } from '../../../streams/graph/properties';
import { addDays } from '../../../src/platform/dates';
import { seededRandom } from '../../../src/platform/samples/seeded-random';
import {
  COUNTIES,
  FIELDS,
  FORMATIONS,
  LEASE_NAMES,
  OPERATOR_WORDS,
  REGULATIONS,
} from '../../../src/platform/samples/texas-facts';

/**
 * A realistic Texas operating portfolio for demos, tests and benchmarks: operators with P-5
 * numbers, fields of the big plays, leases and pads, wells with API numbers of their county
 * and Form PR production, permits, flaring authorizations and events, facilities, pipeline
 * routes, projects, regulations and deadlines. Deterministic for a given `seed`, except
 * graph uuids (unique across tenants).
 */
export interface PortfolioOptions {
  wells: number;
  seed?: number;
  /** The month the latest Form PR reports (YYYY-MM); deadlines follow from it. */
  asOf?: string;
  /**
   * The date a production month's Form PR is due: a compliance rule on the regulator's
   * calendar, handed in by whoever composes the seed (graph's route takes it from compliance's
   * face) so that the graph's sample data depends on no other context.
   */
  formPrDue: (period: string) => string;
}

export interface Portfolio {
  vertices: ImportedVertex[];
  edges: ImportedEdge[];
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const monthsBack = (asOf: string, back: number) => {
  const [y, m] = asOf.split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 1 - back, 1));
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1, 2)}`;
};

export function generatePortfolio(options: PortfolioOptions): Portfolio {
  const r = seededRandom(options.seed ?? 42);
  const asOf = options.asOf ?? '2026-01';
  const today = `${asOf}-15`;
  const vertices: ImportedVertex[] = [];
  const edges: ImportedEdge[] = [];
  const vertex = (label: string, entityId: string, properties: Record<string, string | number>): ImportedVertex => {
    const props: Properties = { entity_id: entityId };
    for (const [k, v] of Object.entries(properties)) props[k] = String(v);
    const v = { id: randomUUID(), label, entity_id: entityId, properties: props };
    vertices.push(v);
    return v;
  };
  const edge = (label: string, from: ImportedVertex, to: ImportedVertex, properties: Properties = {}) => {
    edges.push({
      id: randomUUID(),
      label,
      from_id: from.id,
      from_label: from.label,
      to_id: to.id,
      to_label: to.label,
      properties,
    });
  };

  /**
   * Completion, inactivity and the last periodic tests (W-10 oil / G-10 gas for wells that
   * produce or are shut in, H-15 for inactive ones): most tested within the year, some late.
   */
  const wellTests = (status: string, wellType: 'oil' | 'gas', spud: string): Record<string, string> => {
    if (status === 'permitted') return {};
    const tests: Record<string, string> = { completion_date: addDays(spud, r.int(20, 60)) };
    const lastTest = addDays(today, -r.int(20, r.chance(0.1) ? 500 : 340));
    if (status === 'inactive') {
      tests.inactive_since = addDays(today, -r.int(200, 900));
      if (r.chance(0.7)) tests.last_h15_test_date = lastTest;
    } else tests[wellType === 'oil' ? 'last_w10_test_date' : 'last_g10_test_date'] = lastTest;
    return tests;
  };

  const wellCount = Math.max(1, Math.floor(options.wells));
  const regulations = Object.fromEntries(
    REGULATIONS.map((g) => [
      g.rule_number,
      vertex('Regulation', g.entity_id, {
        name: g.name,
        rule_number: g.rule_number,
        source: 'Texas Railroad Commission, 16 TAC chapter 3',
        citation: `16 TAC §${g.entity_id.slice(7)}`,
      }),
    ]),
  );
  const formations = Object.fromEntries(
    Object.entries(FORMATIONS).map(([name, f]) => [
      name,
      vertex('Formation', `FM-${name.toUpperCase().replace(/\W+/g, '-')}`, { name, ...f }),
    ]),
  );

  const operators = Array.from({ length: Math.max(3, Math.ceil(wellCount / 400)) }, (_, i) => {
    const name = `${r.pick(OPERATOR_WORDS.first)} ${r.pick(OPERATOR_WORDS.second)} ${r.pick(OPERATOR_WORDS.suffix)}`;
    const p5 = pad(100000 + ((i * 7919 + 12345) % 899999), 6);
    // The last renewal fell in the renewal month of the past twelve months (a few operators are behind a year).
    const renewalMonth = r.int(1, 12);
    const [y, m] = asOf.split('-').map(Number);
    const lastYear = renewalMonth <= m ? y : y - 1;
    const renewed = addDays(`${lastYear - (r.chance(0.05) ? 1 : 0)}-${pad(renewalMonth, 2)}-01`, r.int(0, 20));
    return vertex('Operator', `P5-${p5}`, {
      name: `${name} #${i + 1}`.replace(/ #1$/, ''),
      p5_number: p5,
      p5_status: r.chance(0.95) ? 'active' : 'delinquent',
      p5_renewal_month: pad(renewalMonth, 2),
      p5_last_renewed: renewed,
      contact_email: `regulatory${i + 1}@operator.example`,
    });
  });

  const totalWeight = FIELDS.reduce((s, f) => s + f.weight, 0);
  const fields = FIELDS.map((f, i) => {
    const county = COUNTIES[f.counties[0]];
    return {
      fact: f,
      v: vertex('Field', pad(10000000 + i * 7654321, 8).slice(-8), {
        name: f.name,
        field_number: pad(10000000 + i * 7654321, 8).slice(-8),
        district: county.district,
        county: f.counties.map((c) => COUNTIES[c].name).join(', '),
        state: 'TX',
      }),
    };
  });
  const pickField = () => {
    let x = r.next() * totalWeight;
    for (const f of fields) if ((x -= f.fact.weight) <= 0) return f;
    return fields[fields.length - 1];
  };

  const routes: ImportedVertex[] = [];
  const projects: ImportedVertex[] = [];
  const apiSerial = new Map<string, number>();
  let leaseNo = 0;
  let placed = 0;
  while (placed < wellCount) {
    // A lease with its pad, tank battery and 1-8 wells, run by one operator in one field.
    const field = pickField();
    const county = COUNTIES[r.pick(field.fact.counties)];
    const operator = r.pick(operators);
    leaseNo++;
    const leaseName = `${r.pick(LEASE_NAMES)} ${r.int(1, 120)}`;
    const leaseNumber = pad(10000 + ((leaseNo * 37) % 89999), 5);
    // An oil lease files one Form PR for its wells (allocated by the lease's method); gas wells file their own.
    const oilLease = field.fact.wellType === 'oil';
    const lease = vertex('Lease', `${oilLease ? 'O' : 'G'}-${county.district}-${leaseNumber}`, {
      name: leaseName,
      lease_number: leaseNumber,
      district: county.district,
      county: county.name,
      oil_gas_code: oilLease ? 'O' : 'G',
      acres: r.int(160, 1280),
      ...(oilLease
        ? {
            allocation_method: r.pick(['lease_test', 'lease_test', 'well_test_ratio', 'metered']),
            form_pr_period: monthsBack(asOf, r.chance(0.04) ? 3 : 1),
          }
        : {}),
    });
    edge('OPERATED_BY', lease, operator);
    const wellpad = vertex('Wellpad', `PAD-${leaseNumber}`, { name: `${leaseName} PAD`, wells_count: 0 });
    const battery = vertex('Facility', `FAC-${leaseNumber}`, {
      name: `${leaseName} TANK BATTERY`,
      type: r.chance(0.15) ? 'cpf' : 'tank_battery',
      capacity: `${r.int(2, 12) * 500} bbl/d`,
    });
    if (routes.length === 0 || r.chance(0.01 * Math.max(1, 4 - routes.length / 50))) {
      const route = vertex('PipelineRoute', `PL-${pad(routes.length + 1, 4)}`, {
        name: `${county.name.toUpperCase()} GATHERING ${routes.length + 1}`,
        diameter: `${r.pick([6, 8, 12, 16, 20])} in`,
        capacity: `${r.int(20, 300)} MMcf/d`,
        commodity: field.fact.wellType === 'oil' ? 'crude oil' : 'natural gas',
      });
      edge('OPERATED_BY', route, operator);
      routes.push(route);
      if (projects.length === 0 || r.chance(0.1)) {
        const project = vertex('InfrastructureProject', `IP-${pad(projects.length + 1, 3)}`, {
          name: `${county.name} takeaway expansion ${projects.length + 1}`,
          type: 'gas gathering',
          status: r.pick(['planned', 'under_construction', 'in_service']),
          in_service_date: addDays(today, r.int(-300, 400)),
        });
        edge('CONNECTS_TO', route, project);
        projects.push(project);
      }
    }
    const route = routes[routes.length - 1];
    edge('FEEDS_INTO', battery, route);
    if (r.chance(0.3)) edge('CONNECTS_TO', projects[projects.length - 1], lease);
    let authorization: ImportedVertex | null = null;
    if (r.chance(0.12)) {
      const expiry = addDays(today, r.int(-60, 240));
      authorization = vertex('FlaringAuthorization', `R32-${pad(20000 + leaseNo, 6)}`, {
        auth_number: `R32-${pad(20000 + leaseNo, 6)}`,
        authorized_mcf: r.pick([50, 100, 250, 500, 1000]),
        expiry_date: expiry,
        status: expiry < today ? 'expired' : 'active',
        form: 'R-32',
      });
      edge('FLARES_AT', authorization, lease);
    }

    const wellsHere = Math.min(wellCount - placed, r.int(1, 8));
    let previous: ImportedVertex | null = null;
    for (let i = 0; i < wellsHere; i++, placed++) {
      const serial = (apiSerial.get(county.code) ?? r.int(30000, 40000)) + 1;
      apiSerial.set(county.code, serial);
      const api = `42-${county.code}-${pad(serial % 100000, 5)}`;
      const horizontal = r.chance(0.75);
      const status = r.pick([
        'producing',
        'producing',
        'producing',
        'producing',
        'producing',
        'producing',
        'producing',
        'shut_in',
        'inactive',
        'permitted',
      ]);
      const spud = addDays(today, -r.int(60, status === 'inactive' ? 12000 : 4000));
      const stripper = !horizontal && r.chance(0.6);
      const baseOil = field.fact.wellType === 'oil' ? (stripper ? r.int(60, 450) : r.int(2500, 18000)) : r.int(0, 300);
      const baseGas =
        field.fact.wellType === 'gas'
          ? stripper
            ? r.int(300, 2700)
            : r.int(60000, 300000)
          : Math.round(baseOil * (r.int(8, 30) / 10));
      const producing = status === 'producing';
      const history = Array.from({ length: 12 }, (_, k) => {
        const decline = Math.pow(0.97, 11 - k);
        return {
          period: monthsBack(asOf, 11 - k),
          oil_bbls: producing ? Math.round(baseOil / decline) : 0,
          gas_mcf: producing ? Math.round(baseGas / decline) : 0,
        };
      });
      const flared = producing && authorization ? r.int(0, 3000) : 0;
      const vented = producing && r.chance(0.05) ? r.int(10, 200) : 0;
      const wellNumber = horizontal ? `${i + 1}H` : String(i + 1);
      const lateral = horizontal ? r.int(5000, 15000) : 0;
      const well = vertex('Well', api, {
        api_number: api,
        name: `${leaseName} ${wellNumber}`,
        well_name: `${leaseName} ${wellNumber}`,
        well_number: wellNumber,
        status,
        well_type: field.fact.wellType,
        spud_date: spud,
        latitude: (county.lat + (r.next() - 0.5) * 0.4).toFixed(5),
        longitude: (county.lon + (r.next() - 0.5) * 0.4).toFixed(5),
        county: county.name,
        district: county.district,
        operator: operator.properties.name,
        field: field.fact.name,
        lease: leaseName,
        lateral_length_ft: lateral,
        production_oil_bbls: producing ? baseOil : 0,
        production_gas_mcf: producing ? baseGas : 0,
        production_water_bbls: producing ? Math.round(baseOil * (r.int(10, 40) / 10)) : 0,
        gas_flared_mcf: flared,
        gas_vented_mcf: vented,
        gas_sold_mcf: producing ? Math.max(0, baseGas - flared - vented - Math.round(baseGas * 0.03)) : 0,
        gas_used_on_lease_mcf: producing ? Math.round(baseGas * 0.03) : 0,
        producing_days: producing ? r.int(26, 31) : 0,
        allocation_method: 'lease_test',
        form_pr_period: monthsBack(asOf, 1),
        production_history_12m: JSON.stringify(history),
        ...wellTests(status, field.fact.wellType, spud),
      });
      edge('LOCATED_IN', well, field.v);
      edge('LOCATED_IN', well, lease);
      edge('OPERATED_BY', well, operator);
      edge('PRODUCES_TO', well, battery);
      edge('COMPLETED_IN', well, formations[r.pick(field.fact.formations)]);
      if (horizontal) edge('LOCATED_ON', well, wellpad);
      if (previous) {
        const distance = r.int(300, 2600);
        edge('OFFSET_TO', well, previous, { distance_ft: String(distance), same_horizon: 'true' });
        if (distance < 1200)
          edge('GOVERNED_BY', well, regulations['Rule 37'], { reason: `offset ${distance} ft, under 1,200 ft` });
      }
      previous = well;
      if (status === 'permitted' || r.chance(0.08)) {
        const issued = addDays(spud, -r.int(20, 120));
        const permit = vertex('Permit', `W1-${pad(800000 + vertices.length, 6)}`, {
          permit_number: pad(800000 + vertices.length, 6),
          type: 'W-1 drilling permit',
          form: 'W-1',
          status: addDays(issued, 730) < today ? 'expired' : 'approved',
          issued_date: issued,
          expiration_date: addDays(issued, 730),
        });
        edge('PART_OF', permit, well);
        edge('GOVERNED_BY', permit, regulations['Rule 5']);
      }
      if (flared > 0 && authorization) {
        edge('FLARES_AT', authorization, well);
        const event = vertex('FlaringEvent', `FE-${api}-${asOf}`, {
          disposition_code: '10',
          volume_mcf: flared,
          date: `${monthsBack(asOf, 1)}-28`,
          authority_remark: 'AR',
        });
        edge('FLARES_AT', event, well);
        edge('AUTHORIZED_UNDER', event, authorization);
        edge('GOVERNED_BY', well, regulations['Rule 32']);
      }
      if (status === 'inactive') {
        edge('GOVERNED_BY', well, regulations['Rule 15']);
        if (r.chance(0.6)) {
          const extension = vertex('Permit', `W3X-${api}`, {
            permit_number: `W3X-${pad(vertices.length, 6)}`,
            type: 'W-3X plugging extension',
            form: 'W-3X',
            status: 'approved',
            issued_date: addDays(today, -r.int(30, 300)),
            expiration_date: addDays(today, r.int(-20, 330)),
          });
          edge('PART_OF', extension, well);
          edge('GOVERNED_BY', extension, regulations['Rule 15']);
        }
        const due = vertex('ComplianceDeadline', `DL-H15-${api}`, {
          deadline_date: addDays(today, r.int(-20, 90)),
          type: 'H-15 fluid level test',
          form: 'H-15',
          status: 'open',
        });
        edge('HAS_DEADLINE', well, due);
      } else if (r.chance(0.05)) {
        const period = monthsBack(asOf, 0);
        const due = vertex('ComplianceDeadline', `DL-PR-${api}-${period}`, {
          deadline_date: options.formPrDue(period),
          type: 'Form PR monthly production report',
          form: 'PR',
          period,
          status: 'open',
        });
        edge('HAS_DEADLINE', well, due);
      }
    }
    wellpad.properties.wells_count = String(wellsHere);
  }
  return { vertices, edges };
}
