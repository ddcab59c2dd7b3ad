/**
 * The builtin assistant's evaluation set: everyday questions of a compliance team on the
 * seeded demo portfolio, each with the facts its answer must state. The facts are computed
 * from the platform's API by `everyday-questions.test.ts` (the `Portfolio` below); nothing
 * here is a number written by hand. Documented in docs/agents.md, "Evaluation set".
 */
export interface Row {
  entity_id: string;
  entity_name: string;
  entity_type: string;
  domains: Record<string, string>;
}

export interface Vertex {
  entity_id: string;
  properties: Record<string, string>;
}

/** What the test read from the API before asking. */
export interface Portfolio {
  today: string;
  rows: Row[];
  wells: Vertex[];
  leases: Vertex[];
  operators: Vertex[];
  /** The wells and leases each of the first operators runs (OPERATED_BY). */
  operated: Map<string, Array<Vertex & { label: string }>>;
  /** Lease entity id of each well (LOCATED_IN). */
  leaseOf: Map<string, string>;
  summary: { due_7_days_count: number; anomaly_count: number };
  /** The well created through the API with an entity id that is not its API number. */
  gasWell: { entity_id: string; api_number: string; name: string };
  /** A name two leases share. */
  twinLease: string;
  templates: Array<{ form: string; title: string }>;
  roles: string[];
}

export type Intent = 'list' | 'count' | 'fact' | 'status' | 'howto' | 'resolution' | 'period' | 'filing' | 'portfolio';

export interface Expectation {
  /** The answer's first line, exactly or by pattern. */
  first?: string | RegExp;
  contains?: Array<string | RegExp>;
  excludes?: Array<string | RegExp>;
  /** The tools called, in order (load_skill aside). */
  tools?: string[];
  /** An entity id every tool call that takes one was given. */
  entityId?: string;
  status?: 'completed' | 'awaiting_hitl';
}

export interface Case {
  intent: Intent;
  ask(p: Portfolio): string;
  expect(p: Portfolio): Expectation;
}

// --- facts, from what the API answered -------------------------------------------------------

const DEADLINE_DOMAINS = ['production', 'well_tests', 'inactive_wells', 'operators'];
const SEVERITY: Record<string, number> = { red: 4, amber: 3, blue: 2, green: 1, grey: 0 };
export const worst = (r: Row) => Object.values(r.domains).sort((a, b) => SEVERITY[b] - SEVERITY[a])[0] ?? 'grey';
/**
 * Overdue work as the matrix shows it: a red verdict on a rule with deadlines (a filing, a
 * test, a renewal, a plugging). Red on spacing, flaring or a drilling permit is a violation
 * without a deadline (docs/agents.md, "Overdue").
 */
export const overdue = (r: Row) => DEADLINE_DOMAINS.some((d) => r.domains[d] === 'red');
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const of = (p: Portfolio, type: string) => p.rows.filter((r) => r.entity_type === type);
const well = (p: Portfolio, index: number) => p.wells[index % p.wells.length];
/** A producing oil well on a lease with more than one well (names are then shared by several). */
const producing = (p: Portfolio) =>
  p.wells.filter((w) => w.properties.status === 'producing' && w.properties.well_type === 'oil');
/** A lease whose name no other lease has and which is no well's name either. */
const uniqueLease = (p: Portfolio, index: number) =>
  p.leases.filter(
    (l) => p.leases.filter((o) => o.properties.name === l.properties.name).length === 1 && l.entity_id.startsWith('O-'),
  )[index];
const operator = (p: Portfolio, index: number) => p.operators[index % p.operators.length];
const wellsOf = (p: Portfolio, op: Vertex) => p.operated.get(op.entity_id)!.filter((v) => v.label === 'Well');
const topBy = (items: string[]) => {
  const counts = new Map<string, number>();
  for (const i of items) if (i) counts.set(i, (counts.get(i) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
};
const monthOf = (p: Portfolio, back: number) => {
  const [y, m] = p.today.split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 1 - back, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const history = (w: Vertex) =>
  JSON.parse(w.properties.production_history_12m) as Array<{ period: string; oil_bbls: number; gas_mcf: number }>;
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });
const countLine = (n: number, noun: string, predicate: string) =>
  n === 0 ? `No ${noun} is ${predicate}.` : `${plural(n, noun)} ${n === 1 ? 'is' : 'are'} ${predicate}.`;
const yesNo = (r: Row | undefined) => (worst(r!) === 'red' ? 'No.' : 'Yes.');

const list = (
  intent: Intent,
  question: string,
  rows: (p: Portfolio) => Row[],
  noun: string,
  predicate: string,
  extra: Partial<Expectation> = {},
): Case => ({
  intent,
  ask: () => question,
  expect: (p) => ({ first: countLine(rows(p).length, noun, predicate), tools: ['compliance_list'], ...extra }),
});

export const CASES: Case[] = [
  // Lists filtered by rule, colour, county, operator, lease.
  list(
    'list',
    'Which wells are in violation of Rule 32 (flaring)?',
    (p) => of(p, 'Well').filter((r) => r.domains.rule_32 === 'red'),
    'well',
    'not compliant on Rule 32 flaring and venting',
  ),
  list(
    'list',
    'Which wells violate the Rule 37 spacing?',
    (p) => of(p, 'Well').filter((r) => r.domains.rule_37 === 'red'),
    'well',
    'not compliant on Rule 37 well spacing',
  ),
  list(
    'list',
    'List the leases that are not compliant on Form PR',
    (p) => of(p, 'Lease').filter((r) => r.domains.production === 'red'),
    'lease',
    'not compliant on Form PR production reporting',
  ),
  list(
    'list',
    'Which wells are failing their well tests?',
    (p) => of(p, 'Well').filter((r) => r.domains.well_tests === 'red'),
    'well',
    'not compliant on Well tests (W-10, G-10, H-15)',
  ),
  list(
    'list',
    'Which wells are out of compliance on drilling permits?',
    (p) => of(p, 'Well').filter((r) => r.domains.drilling === 'red'),
    'well',
    'not compliant on Drilling permits (W-1)',
  ),
  list(
    'list',
    'Which inactive wells are not compliant?',
    (p) => of(p, 'Well').filter((r) => r.domains.inactive_wells === 'red'),
    'well',
    'not compliant on Inactive wells (Rules 14 and 15)',
  ),
  list(
    'list',
    'Which wells need action?',
    (p) => of(p, 'Well').filter((r) => worst(r) === 'amber'),
    'well',
    'action needed',
  ),
  list(
    'list',
    'Which wells are not compliant?',
    (p) => of(p, 'Well').filter((r) => worst(r) === 'red'),
    'well',
    'not compliant',
  ),
  list(
    'list',
    'Which wells are compliant?',
    (p) => of(p, 'Well').filter((r) => worst(r) === 'green'),
    'well',
    'compliant',
  ),
  list('list', 'Show me the overdue wells', (p) => of(p, 'Well').filter(overdue), 'well', 'overdue', {
    excludes: [/Rule 37 well spacing:/, /expired on 20\d\d-\d\d-\d\d before spud/],
  }),
  list('list', 'Which operators are overdue?', (p) => of(p, 'Operator').filter(overdue), 'operator', 'overdue'),
  list('list', 'Which leases are overdue?', (p) => of(p, 'Lease').filter(overdue), 'lease', 'overdue'),
  {
    intent: 'list',
    ask: () => 'Which wells in Midland County are overdue?',
    expect: (p) => ({
      first: countLine(
        p.wells.filter(
          (w) => w.properties.county === 'Midland' && overdue(p.rows.find((r) => r.entity_id === w.entity_id)!),
        ).length,
        'well',
        'overdue in Midland county',
      ),
      tools: ['compliance_list'],
    }),
  },
  {
    intent: 'list',
    ask: (p) => `Which wells of operator ${operator(p, 0).properties.name} are not compliant?`,
    expect: (p) => {
      const ids = new Set(wellsOf(p, operator(p, 0)).map((w) => w.entity_id));
      return {
        first: countLine(
          of(p, 'Well').filter((r) => ids.has(r.entity_id) && worst(r) === 'red').length,
          'well',
          `not compliant of operator ${operator(p, 0).properties.name}`,
        ),
        tools: ['find_entities', 'compliance_list'],
        entityId: operator(p, 0).entity_id,
      };
    },
  },
  {
    intent: 'list',
    ask: (p) => `Which wells on lease ${uniqueLease(p, 0).properties.name} are overdue?`,
    expect: (p) => {
      const lease = uniqueLease(p, 0);
      const n = p.wells.filter(
        (w) =>
          p.leaseOf.get(w.entity_id) === lease.entity_id && overdue(p.rows.find((r) => r.entity_id === w.entity_id)!),
      ).length;
      return {
        first:
          n === 0
            ? 'No well is overdue on lease ' + lease.properties.name + '.'
            : countLine(n, 'well', `overdue on lease ${lease.properties.name}`),
        tools: ['find_entities', 'compliance_list'],
        entityId: lease.entity_id,
      };
    },
  },
  {
    intent: 'list',
    ask: () => 'Overdue wells by rule please',
    expect: (p) => ({
      first: countLine(of(p, 'Well').filter(overdue).length, 'well', 'overdue'),
      contains: [/^By rule: /m],
      tools: ['compliance_list'],
    }),
  },
  {
    intent: 'list',
    ask: () => 'Which county has the most overdue wells?',
    expect: (p) => {
      const [county, n] = topBy(
        p.wells
          .filter((w) => overdue(p.rows.find((r) => r.entity_id === w.entity_id)!))
          .map((w) => w.properties.county),
      );
      return {
        first: `${county} has the most: ${n} of the ${of(p, 'Well').filter(overdue).length} wells that are overdue.`,
        tools: ['compliance_list'],
      };
    },
  },
  // Counts with their unit.
  list('count', 'How many wells are overdue?', (p) => of(p, 'Well').filter(overdue), 'well', 'overdue'),
  list('count', 'How many leases are overdue?', (p) => of(p, 'Lease').filter(overdue), 'lease', 'overdue'),
  list('count', 'How many operators are overdue?', (p) => of(p, 'Operator').filter(overdue), 'operator', 'overdue'),
  list('count', 'How many wells do we have?', (p) => of(p, 'Well'), 'well', 'on record'),
  list('count', 'How many leases are there?', (p) => of(p, 'Lease'), 'lease', 'on record'),
  list('count', 'How many operators are there?', (p) => of(p, 'Operator'), 'operator', 'on record'),
  list(
    'count',
    'How many wells are not compliant with Rule 32?',
    (p) => of(p, 'Well').filter((r) => r.domains.rule_32 === 'red'),
    'well',
    'not compliant on Rule 32 flaring and venting',
  ),
  list(
    'count',
    'How many wells are red?',
    (p) => of(p, 'Well').filter((r) => worst(r) === 'red'),
    'well',
    'not compliant',
  ),
  {
    intent: 'count',
    ask: () => 'How many wells are in Reeves County?',
    expect: (p) => ({
      first: countLine(
        p.wells.filter((w) => w.properties.county === 'Reeves').length,
        'well',
        'on record in Reeves county',
      ),
      tools: ['compliance_list'],
    }),
  },
  {
    intent: 'count',
    ask: () => 'Which operator has the most overdue wells, and how many?',
    expect: (p) => {
      const [name, n] = topBy(
        p.wells
          .filter((w) => overdue(p.rows.find((r) => r.entity_id === w.entity_id)!))
          .map((w) => w.properties.operator),
      );
      return {
        first: `${name} has the most: ${n} of the ${of(p, 'Well').filter(overdue).length} wells that are overdue.`,
        tools: ['compliance_list'],
      };
    },
  },
  {
    intent: 'count',
    ask: () => 'Which lease has the most overdue wells?',
    expect: (p) => {
      const [name, n] = topBy(
        p.wells.filter((w) => overdue(p.rows.find((r) => r.entity_id === w.entity_id)!)).map((w) => w.properties.lease),
      );
      return {
        first: `${name} has the most: ${n} of the ${of(p, 'Well').filter(overdue).length} wells that are overdue.`,
        tools: ['compliance_list'],
      };
    },
  },
  {
    intent: 'count',
    ask: (p) => `How many wells does operator ${operator(p, 1).properties.name} have?`,
    expect: (p) => ({
      first: countLine(
        wellsOf(p, operator(p, 1)).length,
        'well',
        `on record of operator ${operator(p, 1).properties.name}`,
      ),
      entityId: operator(p, 1).entity_id,
    }),
  },
  {
    intent: 'count',
    ask: (p) => `How many wells are on lease ${uniqueLease(p, 1).properties.name}?`,
    expect: (p) => ({
      first: countLine(
        p.wells.filter((w) => p.leaseOf.get(w.entity_id) === uniqueLease(p, 1).entity_id).length,
        'well',
        `on record on lease ${uniqueLease(p, 1).properties.name}`,
      ),
      entityId: uniqueLease(p, 1).entity_id,
    }),
  },
  {
    intent: 'count',
    ask: (p) => `How many leases does operator ${operator(p, 2).properties.name} have?`,
    expect: (p) => ({
      first: countLine(
        p.operated.get(operator(p, 2).entity_id)!.filter((v) => v.label === 'Lease').length,
        'lease',
        `on record of operator ${operator(p, 2).properties.name}`,
      ),
      entityId: operator(p, 2).entity_id,
    }),
  },
  // Facts about one entity.
  ...[0, 7, 23].map((i): Case => ({
    intent: 'fact',
    ask: (p) => `Who operates well ${well(p, i).properties.api_number}?`,
    expect: (p) => ({
      first: new RegExp(
        `^Well ${esc(well(p, i).properties.name)} \\(${well(p, i).entity_id}\\) is operated by ${esc(well(p, i).properties.operator)} \\(P5-\\d+\\)\\.$`,
      ),
      tools: ['find_entities', 'entity_facts'],
      entityId: well(p, i).entity_id,
    }),
  })),
  {
    intent: 'fact',
    ask: (p) => `Who operates ${well(p, 11).properties.name}?`,
    expect: (p) => ({
      first: new RegExp(`is operated by ${esc(well(p, 11).properties.operator)} `),
      entityId: well(p, 11).entity_id,
    }),
  },
  {
    intent: 'fact',
    ask: (p) => `Which lease is well ${well(p, 3).properties.api_number} on?`,
    expect: (p) => ({
      first: `Well ${well(p, 3).properties.name} (${well(p, 3).entity_id}) is on lease ${well(p, 3).properties.lease} (${p.leaseOf.get(well(p, 3).entity_id)}).`,
    }),
  },
  {
    intent: 'fact',
    ask: (p) => `Which field is well ${well(p, 5).properties.api_number} in?`,
    expect: (p) => ({
      first: new RegExp(`^Well .+ is in the ${esc(well(p, 5).properties.field)} \\(\\d+\\) field\\.$`),
    }),
  },
  {
    intent: 'fact',
    ask: (p) => `Which county is well ${well(p, 9).properties.name} in?`,
    expect: (p) => ({
      first: `Well ${well(p, 9).properties.name} (${well(p, 9).entity_id}) is in ${well(p, 9).properties.county} county, RRC district ${well(p, 9).properties.district}.`,
    }),
  },
  {
    intent: 'fact',
    ask: (p) => `Is well ${well(p, 13).properties.api_number} producing?`,
    expect: (p) => ({
      first: `Well ${well(p, 13).properties.name} (${well(p, 13).entity_id}) is ${well(p, 13).properties.status.replace(/_/g, ' ')}, ${well(p, 13).properties.well_type} well.`,
    }),
  },
  {
    intent: 'fact',
    ask: (p) => `When was the last filing for well ${well(p, 17).properties.api_number}?`,
    expect: (p) => ({
      first: new RegExp(`^The last filing on record for Well .+ \\(${well(p, 17).entity_id}\\): `),
      contains: [well(p, 17).properties.form_pr_period],
    }),
  },
  {
    intent: 'fact',
    ask: (p) => `What is the API number of well ${well(p, 19).properties.name}?`,
    expect: (p) => ({
      first: `The API number of Well ${well(p, 19).properties.name} (${well(p, 19).entity_id}) is ${well(p, 19).properties.api_number}.`,
    }),
  },
  {
    intent: 'fact',
    ask: (p) => `Who operates lease ${uniqueLease(p, 2).properties.name}?`,
    expect: (p) => {
      const lease = uniqueLease(p, 2);
      const op = p.wells.find((w) => p.leaseOf.get(w.entity_id) === lease.entity_id)!.properties.operator;
      return {
        first: new RegExp(
          `^Lease ${esc(lease.properties.name)} \\(${lease.entity_id}\\) is operated by ${esc(op)} \\(P5-\\d+\\)\\.$`,
        ),
      };
    },
  },
  {
    intent: 'fact',
    ask: (p) => `Which county is lease ${uniqueLease(p, 3).entity_id} in?`,
    expect: (p) => ({ first: new RegExp(`^Lease .+ is in ${esc(uniqueLease(p, 3).properties.county)} county`) }),
  },
  {
    intent: 'fact',
    ask: (p) => `Who operates the gas well ${p.gasWell.api_number}?`,
    expect: (p) => ({
      first: new RegExp(`^Well ${esc(p.gasWell.name)} \\(${p.gasWell.entity_id}\\) is operated by `),
      entityId: p.gasWell.entity_id,
    }),
  },
  // Production for a period (relative periods resolved against the turn's clock).
  ...[
    [
      2,
      (p: Portfolio) =>
        `How much oil did well ${producing(p)[0].properties.api_number} produce in ${MONTH_NAMES[Number(monthOf(p, 2).slice(5)) - 1]}?`,
    ],
    [
      3,
      (p: Portfolio) => `What was the production of well ${producing(p)[1].properties.api_number} in ${monthOf(p, 3)}?`,
    ],
    [
      4,
      (p: Portfolio) =>
        `Production of ${producing(p)[2].properties.name} for ${Number(monthOf(p, 4).slice(5))}/${monthOf(p, 4).slice(0, 4)}`,
    ],
  ].map(([back, ask], i): Case => ({
    intent: 'period',
    ask: ask as (p: Portfolio) => string,
    expect: (p) => {
      const w = producing(p)[i];
      const month = monthOf(p, back as number);
      const found = history(w).find((h) => h.period === month);
      return {
        tools: ['find_entities', 'production_summary'],
        entityId: w.entity_id,
        contains: [
          found
            ? `in ${month}: ${fmt(found.oil_bbls)} bbl of oil and ${fmt(found.gas_mcf)} mcf of gas`
            : `No production is recorded for well ${w.properties.name} (${w.properties.api_number}) in ${month}`,
        ],
      };
    },
  })),
  // One entity's compliance.
  ...[1, 4, 8].map((i): Case => ({
    intent: 'status',
    ask: (p) => `Is well ${well(p, i).properties.api_number} compliant?`,
    expect: (p) => ({
      first: yesNo(p.rows.find((r) => r.entity_id === well(p, i).entity_id)),
      tools: ['find_entities', 'compliance_status'],
      entityId: well(p, i).entity_id,
    }),
  })),
  {
    intent: 'status',
    ask: (p) => `Is lease ${uniqueLease(p, 4).properties.name} compliant?`,
    expect: (p) => ({
      first: yesNo(p.rows.find((r) => r.entity_id === uniqueLease(p, 4).entity_id)),
      entityId: uniqueLease(p, 4).entity_id,
    }),
  },
  {
    intent: 'status',
    ask: (p) => `Is operator ${operator(p, 0).properties.name} in compliance?`,
    expect: (p) => ({
      first: yesNo(p.rows.find((r) => r.entity_id === operator(p, 0).entity_id)),
      entityId: operator(p, 0).entity_id,
    }),
  },
  {
    intent: 'status',
    ask: (p) => `What are the deadlines of well ${well(p, 21).properties.api_number}?`,
    expect: (p) => ({
      tools: ['find_entities', 'compliance_deadlines'],
      entityId: well(p, 21).entity_id,
      contains: [new RegExp(`(Deadlines of well|has no recorded deadline).*${well(p, 21).entity_id}`)],
    }),
  },
  {
    intent: 'status',
    ask: (p) => `What flaring authorizations cover well ${well(p, 2).properties.api_number}?`,
    expect: (p) => ({
      tools: ['find_entities', 'flaring_authorizations'],
      entityId: well(p, 2).entity_id,
      contains: [/ mcf/],
    }),
  },
  {
    intent: 'status',
    ask: (p) => `Show the offset wells of ${well(p, 6).properties.api_number}`,
    expect: (p) => ({
      tools: ['find_entities', 'offset_wells'],
      entityId: well(p, 6).entity_id,
      contains: [/1,200 ft Rule 37 spacing|records no offset wells/],
    }),
  },
  // Entities found however they are named.
  {
    intent: 'resolution',
    ask: (p) => `is well ${well(p, 15).properties.name.toLowerCase()} compliant?`,
    expect: (p) => ({
      first: yesNo(p.rows.find((r) => r.entity_id === well(p, 15).entity_id)),
      entityId: well(p, 15).entity_id,
    }),
  },
  {
    intent: 'resolution',
    ask: (p) => `Is well ${well(p, 16).properties.api_number.replace(/-/g, '')} compliant?`,
    expect: (p) => ({
      first: yesNo(p.rows.find((r) => r.entity_id === well(p, 16).entity_id)),
      entityId: well(p, 16).entity_id,
    }),
  },
  {
    intent: 'resolution',
    ask: (p) => `Who operates lease ${typo(uniqueLease(p, 5).properties.name)}?`,
    expect: (p) => ({
      first: new RegExp(
        `^Lease ${esc(uniqueLease(p, 5).properties.name)} \\(${uniqueLease(p, 5).entity_id}\\) is operated by `,
      ),
      entityId: uniqueLease(p, 5).entity_id,
    }),
  },
  {
    intent: 'resolution',
    ask: (p) => `Is lease ${p.twinLease} compliant?`,
    expect: (p) => ({
      first: `Which one do you mean? 2 entities match "${p.twinLease}":`,
      tools: ['find_entities'],
      contains: p.leases.filter((l) => l.properties.name === p.twinLease).map((l) => `(${l.entity_id})`),
    }),
  },
  {
    intent: 'resolution',
    ask: () => 'Who operates well NOSUCH WELL 999?',
    expect: () => ({
      first:
        'I found no well matching "NOSUCH WELL 999" in the knowledge graph. Give its API number, lease id, P-5 number or name as the platform knows it.',
      tools: ['find_entities'],
    }),
  },
  {
    intent: 'resolution',
    ask: (p) => `Is ${operator(p, 1).entity_id} compliant?`,
    expect: (p) => ({
      first: yesNo(p.rows.find((r) => r.entity_id === operator(p, 1).entity_id)),
      entityId: operator(p, 1).entity_id,
    }),
  },
  // Filings: the entity id, the filing period.
  {
    intent: 'filing',
    ask: (p) => `Please file the Form PR for well ${p.gasWell.api_number} for last month.`,
    expect: (p) => ({
      status: 'awaiting_hitl',
      tools: ['find_entities', 'start_checklist', 'request_approval'],
      entityId: p.gasWell.entity_id,
      contains: [`period ${monthOf(p, 1)}`],
    }),
  },
  {
    intent: 'filing',
    ask: (p) => `Prepare the Form PR for ${uniqueLease(p, 6).properties.name} for last month`,
    expect: (p) => ({
      tools: ['find_entities', 'start_checklist'],
      entityId: uniqueLease(p, 6).entity_id,
      contains: [`Form PR monthly production report for lease ${uniqueLease(p, 6).entity_id}, period ${monthOf(p, 1)}`],
    }),
  },
  {
    intent: 'filing',
    ask: (p) =>
      `Prepare the Form PR for lease ${uniqueLease(p, 7).properties.name} for ${MONTH_NAMES[Number(monthOf(p, 2).slice(5)) - 1]}`,
    expect: (p) => ({ entityId: uniqueLease(p, 7).entity_id, contains: [`period ${monthOf(p, 2)}`] }),
  },
  {
    intent: 'filing',
    ask: (p) => `Prepare the Form PR for lease ${uniqueLease(p, 8).entity_id} for last quarter`,
    expect: (p) => {
      const month = Number(p.today.slice(5, 7));
      return { entityId: uniqueLease(p, 8).entity_id, contains: [`period ${monthOf(p, ((month - 1) % 3) + 1)}`] };
    },
  },
  // The issue's own reproductions, word for word.
  {
    intent: 'fact',
    ask: () => 'Who operates well 42-329-39879?',
    expect: (p) => {
      const w = p.wells.find((x) => x.properties.api_number === '42-329-39879')!;
      return {
        first: `Well ${w.properties.name} (42-329-39879) is operated by ${w.properties.operator} (${p.operators.find((o) => o.properties.name === w.properties.operator)!.entity_id}).`,
        entityId: '42-329-39879',
      };
    },
  },
  {
    intent: 'filing',
    ask: () => 'Prepare the Form PR for BAKER 11 for last month',
    expect: (p) => {
      const named = p.leases.filter((l) => l.properties.name === 'BAKER 11');
      if (named.length !== 1) return { first: `Which one do you mean? ${named.length} entities match "BAKER 11":` };
      return {
        tools: ['find_entities', 'start_checklist'],
        entityId: named[0].entity_id,
        contains: [`Form PR monthly production report for lease ${named[0].entity_id}, period ${monthOf(p, 1)}`],
      };
    },
  },
  // How the platform works.
  {
    intent: 'howto',
    ask: () => 'What file formats can I attach?',
    expect: () => ({
      first: 'You can attach PDF, DOCX, XLSX, CSV and plain text (TXT) files.',
      tools: ['platform_help'],
    }),
  },
  {
    intent: 'howto',
    ask: () => 'How big can an upload be?',
    expect: () => ({ contains: [/up to 10 MB per file/], tools: ['platform_help'] }),
  },
  {
    intent: 'howto',
    ask: () => 'Can I attach a spreadsheet to a message?',
    expect: () => ({ contains: ['XLSX', /up to 3 attachments/] }),
  },
  {
    intent: 'howto',
    ask: () => 'What roles are there?',
    expect: (p) => ({ contains: p.roles.map((r) => new RegExp(`^- ${r}: `, 'm')), tools: ['platform_help'] }),
  },
  {
    intent: 'howto',
    ask: () => 'Who can approve a filing?',
    expect: () => ({ contains: [/^- reviewer: .*decide and escalate human-in-the-loop approvals/m] }),
  },
  {
    intent: 'howto',
    ask: () => 'What can I file?',
    expect: (p) => ({
      first: `These filings can be prepared, checked and sent for review: ${p.templates.map((t) => `Form ${t.form}`).join(', ')}.`,
      tools: ['platform_help'],
    }),
  },
  {
    intent: 'howto',
    ask: () => 'Which forms can be submitted here?',
    expect: (p) => ({ contains: p.templates.map((t) => t.title) }),
  },
  // The dashboard's buckets.
  {
    intent: 'portfolio',
    ask: () => 'What is due in the next 7 days?',
    expect: (p) => ({
      contains: [`, ${p.summary.due_7_days_count} due within 7 days,`],
      tools: ['compliance_portfolio'],
    }),
  },
  {
    intent: 'portfolio',
    ask: () => 'Any anomalies in the portfolio?',
    expect: (p) => ({ contains: [`${p.summary.anomaly_count} with anomalies.`], tools: ['compliance_portfolio'] }),
  },
  {
    intent: 'portfolio',
    ask: () => 'What is due?',
    expect: () => ({
      contains: ['(I took "due" to mean due within the next 30 days.)'],
      tools: ['compliance_portfolio'],
    }),
  },
];

export function esc(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One letter dropped from the longest word: "BRISCOE 68" → "BRISCE 68". */
function typo(name: string): string {
  const words = name.split(' ');
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
  return words.map((w) => (w === longest ? w.slice(0, -2) + w.slice(-1) : w)).join(' ');
}
