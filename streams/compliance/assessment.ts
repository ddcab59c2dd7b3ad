import { hash } from 'node:crypto';
import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';

/**
 * One compliance assessment (`compliance.assessment-<tenant>-<assessmentId>`): the packs'
 * verdicts for a portfolio (or one entity) on a day, recorded once. The verdicts travel in
 * `VerdictsAssessed` batches of a few hundred entities, then `AssessmentRecorded` closes the
 * snapshot; the dashboard's read models are projections of these events.
 */
export const COLORS = ['green', 'amber', 'red', 'grey', 'blue'] as const;
export type Color = (typeof COLORS)[number];
export const BUCKETS = ['overdue', 'due_7d', 'due_30d', 'anomalies'] as const;
export type Bucket = (typeof BUCKETS)[number];

const Fact = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const AssessedCell = z.object({
  domain: z.string(),
  color: z.enum(COLORS),
  bucket: z.enum(BUCKETS).nullable(),
  /** YYYY-MM-DD, or null when nothing falls due. */
  dueDate: z.string().nullable(),
  /** The explicit anomaly flag the `anomalies` bucket keys on. */
  anomaly: z.boolean(),
  reason: z.string(),
  facts: z.record(Fact),
});
export type AssessedCell = z.infer<typeof AssessedCell>;

export const AssessedEntity = z.object({
  entityId: z.string(),
  entityType: z.string(),
  entityName: z.string(),
  cells: z.array(AssessedCell),
});
export type AssessedEntity = z.infer<typeof AssessedEntity>;

/**
 * The tenant's graph read model as an assessment found it: the global log position it stood
 * at (`commit/prepare`, the store's visibility horizon when the packs started reading) and
 * how many vertices and edges it held. The next assessment re-evaluates only the entities near
 * what was written after that position. Assessments recorded before positions carry the
 * newest change times instead (`verticesAt`, `edgesAt`), which no longer count as a mark.
 */
export const GraphMark = z.object({
  position: z.string().optional(),
  vertices: z.number().int(),
  edges: z.number().int(),
  verticesAt: z.string().nullable().optional(),
  edgesAt: z.string().nullable().optional(),
});
export type GraphMark = z.infer<typeof GraphMark>;

/**
 * A verdict's identity: equal verdicts, equal fingerprints, whatever the key order (events
 * come back from jsonb with their keys reordered). The projector opens a cell version only
 * when it changes; an assessment appends only the cells whose fingerprint changed.
 */
export function cellFingerprint(cell: AssessedCell): string {
  // One-shot `hash` (no Hash object per cell): 100,000 cells per first assessment of 20,000 wells.
  return hash('md5', fingerprintText(cell));
}

/** A JSON member as it stands in an array: undefined (a fact no one set) is `null` there. */
const member = (value: unknown) => (value === undefined ? 'null' : JSON.stringify(value));

/**
 * What is hashed: `JSON.stringify([domain, color, bucket, dueDate, anomaly, reason, [[key,
 * value], …]])` with the facts by key, written out directly, so fingerprints recorded before
 * stay equal. Building that array per cell (and sorting with `Array#sort`, which copies)
 * allocated a quarter of a gigabyte in a first assessment of 20,000 wells.
 */
export function fingerprintText(cell: AssessedCell): string {
  const keys = Object.keys(cell.facts);
  // Insertion sort in place: a cell has a handful of facts (keys are unique, so order is total).
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j];
    keys[j + 1] = key;
  }
  let facts = '';
  for (let i = 0; i < keys.length; i++)
    facts += `${i === 0 ? '' : ','}[${JSON.stringify(keys[i])},${member(cell.facts[keys[i]])}]`;
  return `[${JSON.stringify(cell.domain)},${member(cell.color)},${member(cell.bucket)},${member(cell.dueDate)},${member(cell.anomaly)},${JSON.stringify(cell.reason)},[${facts}]]`;
}

/**
 * A packed cell: [domain #, color, bucket, due date, anomaly, reason prefix #, rest of the
 * reason (#, or the text itself in batches recorded before `rests`), fact keys #, ...fact
 * values] — `#` an index into the event's `domains`, `prefixes` (a rule's citation, the part
 * of a reason up to its first `: `), `rests` and `factKeys` tables. A fact key `@source` in
 * `factKeys` is the fact `source` naming the verdict's own entity (`graph:<type>/<id>`, what
 * nearly every verdict cites): its value is not repeated in the cell.
 */
export type PackedCell = [
  number,
  Color,
  Bucket | null,
  string | null,
  boolean,
  number,
  number | string,
  number,
  ...Array<string | number | boolean | null>,
];
/** A packed entity: [entity id, entity type, entity name, its cells]. */
export type PackedEntity = [string, string, string, PackedCell[]];
/** In `factKeys`: the fact `source` is the verdict's own entity, left out of the cell's values. */
export const OWN_SOURCE = '@source';
const ownSource = (entityType: string, entityId: string) => `graph:${entityType}/${entityId}`;

export const AssessmentEventSchemas = {
  /**
   * The verdicts of up to `ASSESSMENT_BATCH_SIZE` entities, packed: every cell
   * an array, what repeats from cell to cell (domain, the rule's citation, the fact names)
   * stored once per event. Same verdicts as `EntitiesAssessed`, about half the bytes and a
   * tenth of the JSON objects to sign and store; `assessedEntities` unpacks either.
   */
  VerdictsAssessed: z.object({
    assessmentId: z.string(),
    batch: z.number().int(),
    domains: z.array(z.string()),
    prefixes: z.array(z.string()),
    /** The reasons' rests, each once per batch (absent in batches recorded before: the rest is in the cell). */
    rests: z.array(z.string()).optional(),
    factKeys: z.array(z.array(z.string())),
    entities: z.array(z.custom<PackedEntity>((v) => Array.isArray(v))),
  }),
  /** The verdicts unpacked, one object per cell: what assessments recorded before packing (still read). */
  EntitiesAssessed: z.object({
    assessmentId: z.string(),
    batch: z.number().int(),
    entities: z.array(AssessedEntity),
  }),
  AssessmentRecorded: z.object({
    assessmentId: z.string(),
    scope: z.enum(['portfolio', 'entity']),
    entityId: z.string().nullable(),
    /** The day the snapshot stands for (UTC, YYYY-MM-DD) and the clock at assessment. */
    assessedOn: z.string(),
    assessedAt: z.string(),
    domains: z.array(z.string()),
    failedDomains: z.record(z.string()),
    status: z.enum(['complete', 'partial']),
    /** Entities and verdicts of the portfolio after this assessment (re-evaluated or carried over). */
    entities: z.number().int(),
    cells: z.number().int(),
    /** The graph as the packs read it. */
    graph: GraphMark.optional(),
    /** How many entities the packs re-evaluated (absent: all); only changed verdicts are in the batches. */
    reassessed: z.number().int().optional(),
  }),
};
export type AssessmentEvent = EventsOf<typeof AssessmentEventSchemas>;
const readWithZod = eventReader('compliance assessment', AssessmentEventSchemas);

const COLOR_SET = new Set<string>(COLORS);
const BUCKET_SET = new Set<string>(BUCKETS);
const isFact = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * `EntitiesAssessed` carries up to 500 entities × 5 cells; zod takes ~150 ms per such event,
 * which made projecting a 20,000-well assessment take longer than assessing it. The same
 * shape is checked here with plain loops (malformed data still fails loudly); the small
 * events go through zod.
 */
function checkEntitiesAssessed(data: any): AssessmentEvent & { type: 'EntitiesAssessed' } {
  const fail = (what: string) => {
    throw new Error(`malformed EntitiesAssessed event: ${what}`);
  };
  if (typeof data?.assessmentId !== 'string' || !Number.isInteger(data.batch) || !Array.isArray(data.entities))
    fail('assessmentId, batch, entities');
  for (const e of data.entities) {
    if (
      typeof e?.entityId !== 'string' ||
      typeof e.entityType !== 'string' ||
      typeof e.entityName !== 'string' ||
      !Array.isArray(e.cells)
    )
      fail('entity');
    for (const c of e.cells) {
      if (typeof c?.domain !== 'string' || !COLOR_SET.has(c.color) || (c.bucket !== null && !BUCKET_SET.has(c.bucket)))
        fail(`cell of ${e.entityId}`);
      if (
        (c.dueDate !== null && typeof c.dueDate !== 'string') ||
        typeof c.anomaly !== 'boolean' ||
        typeof c.reason !== 'string'
      )
        fail(`cell of ${e.entityId}`);
      if (typeof c.facts !== 'object' || c.facts === null || !Object.values(c.facts).every(isFact))
        fail(`facts of ${e.entityId}`);
    }
  }
  return { type: 'EntitiesAssessed', data };
}

export function readAssessmentEvent(event: { type: string; data: unknown }): AssessmentEvent {
  if (event.type === 'VerdictsAssessed') return checkVerdictsAssessed(event.data);
  return event.type === 'EntitiesAssessed' ? checkEntitiesAssessed(event.data) : readWithZod(event);
}

type Packed = Extract<AssessmentEvent, { type: 'VerdictsAssessed' }>['data'];

/**
 * Packs a batch's verdicts (`VerdictsAssessed`); `unpackVerdicts` gives them back equal. What
 * repeats from cell to cell is written once per batch: a 20,000-well first assessment appends
 * (and the store signs, stores and hands back to two projection lanes) 10 MB instead of 16.
 */
export function packVerdicts(assessmentId: string, batch: number, entities: readonly AssessedEntity[]): Packed {
  const tables = {
    domains: [] as string[],
    prefixes: [] as string[],
    rests: [] as string[],
    factKeys: [] as string[][],
  };
  const index = {
    domains: new Map<string, number>(),
    prefixes: new Map<string, number>(),
    rests: new Map<string, number>(),
    factKeys: new Map<string, number>(),
  };
  const intern = <K extends keyof typeof tables>(table: K, key: string, value: (typeof tables)[K][number]) => {
    let i = index[table].get(key);
    if (i === undefined) {
      i = tables[table].push(value as never) - 1;
      index[table].set(key, i);
    }
    return i;
  };
  const packed = entities.map((e): PackedEntity => {
    const own = ownSource(e.entityType, e.entityId);
    return [
      e.entityId,
      e.entityType,
      e.entityName,
      e.cells.map((c): PackedCell => {
        const colon = c.reason.indexOf(': ');
        const cut = colon < 0 ? 0 : colon + 2;
        const prefix = c.reason.slice(0, cut);
        const rest = c.reason.slice(cut);
        const cell: PackedCell = [
          intern('domains', c.domain, c.domain),
          c.color,
          c.bucket,
          c.dueDate,
          c.anomaly,
          intern('prefixes', prefix, prefix),
          intern('rests', rest, rest),
          0,
        ];
        // The fact names and the values carried in one pass over the facts (the cell is 100,000 times in a first assessment).
        const names: string[] = [];
        for (const key in c.facts) {
          const value = c.facts[key];
          // An undefined fact is no fact (JSON drops it from an object, as it did in `EntitiesAssessed`).
          if (value === undefined) continue;
          if (key === 'source' && value === own) names.push(OWN_SOURCE);
          else {
            names.push(key);
            cell.push(value);
          }
        }
        cell[7] = intern('factKeys', JSON.stringify(names), names);
        return cell;
      }),
    ];
  });
  return { assessmentId, batch, ...tables, entities: packed };
}

export function unpackVerdicts(data: Packed): AssessedEntity[] {
  return data.entities.map(([entityId, entityType, entityName, cells]) => ({
    entityId,
    entityType,
    entityName,
    cells: cells.map(([domain, color, bucket, dueDate, anomaly, prefix, rest, keys, ...values]) => {
      const names = data.factKeys[keys];
      const facts: AssessedCell['facts'] = {};
      for (let i = 0, v = 0; i < names.length; i++) {
        if (names[i] === OWN_SOURCE) facts.source = ownSource(entityType, entityId);
        else facts[names[i]] = values[v++];
      }
      return {
        domain: data.domains[domain],
        color,
        bucket,
        dueDate,
        anomaly,
        reason: data.prefixes[prefix] + (typeof rest === 'number' ? data.rests![rest] : rest),
        facts,
      };
    }),
  }));
}

/** The verdicts an assessment event carries, packed or not (none for `AssessmentRecorded`). */
export function assessedEntities(event: AssessmentEvent): AssessedEntity[] {
  if (event.type === 'VerdictsAssessed') return unpackVerdicts(event.data);
  return event.type === 'EntitiesAssessed' ? event.data.entities : [];
}

/** `VerdictsAssessed` checked with plain loops, like `EntitiesAssessed`: every index in range, every cell whole. */
function checkVerdictsAssessed(data: any): AssessmentEvent & { type: 'VerdictsAssessed' } {
  const fail = (what: string) => {
    throw new Error(`malformed VerdictsAssessed event: ${what}`);
  };
  const strings = (list: unknown) => Array.isArray(list) && list.every((s) => typeof s === 'string');
  if (typeof data?.assessmentId !== 'string' || !Number.isInteger(data.batch) || !Array.isArray(data.entities))
    fail('assessmentId, batch, entities');
  if (
    !strings(data.domains) ||
    !strings(data.prefixes) ||
    !Array.isArray(data.factKeys) ||
    !data.factKeys.every(strings)
  )
    fail('domains, prefixes, factKeys');
  if (data.rests !== undefined && !strings(data.rests)) fail('rests');
  const rests: unknown[] = data.rests ?? [];
  // Values a cell carries: its fact keys but the own source.
  const carried = (data.factKeys as string[][]).map((names) => names.filter((n) => n !== OWN_SOURCE).length);
  const within = (i: unknown, list: unknown[]) =>
    Number.isInteger(i) && (i as number) >= 0 && (i as number) < list.length;
  for (const e of data.entities) {
    if (
      !Array.isArray(e) ||
      e.length !== 4 ||
      typeof e[0] !== 'string' ||
      typeof e[1] !== 'string' ||
      typeof e[2] !== 'string' ||
      !Array.isArray(e[3])
    )
      fail('entity');
    for (const c of e[3]) {
      if (
        !Array.isArray(c) ||
        !within(c[0], data.domains) ||
        !COLOR_SET.has(c[1]) ||
        (c[2] !== null && !BUCKET_SET.has(c[2]))
      )
        fail(`cell of ${e[0]}`);
      if (
        (c[3] !== null && typeof c[3] !== 'string') ||
        typeof c[4] !== 'boolean' ||
        !within(c[5], data.prefixes) ||
        !(typeof c[6] === 'string' || within(c[6], rests))
      )
        fail(`cell of ${e[0]}`);
      if (!within(c[7], data.factKeys) || c.length !== 8 + carried[c[7]] || !c.slice(8).every(isFact))
        fail(`facts of ${e[0]}`);
    }
  }
  return { type: 'VerdictsAssessed', data };
}

/** An assessment is written once; its decision state is only whether it exists. */
export type AssessmentState = { status: 'none' } | { status: 'recorded'; assessmentId: string; assessedOn: string };

export function evolveAssessment(state: AssessmentState, event: AssessmentEvent): AssessmentState {
  switch (event.type) {
    case 'VerdictsAssessed':
    case 'EntitiesAssessed':
      return state;
    case 'AssessmentRecorded':
      return { status: 'recorded', assessmentId: event.data.assessmentId, assessedOn: event.data.assessedOn };
  }
}

export const assessmentAggregate: Aggregate<AssessmentState, AssessmentEvent> = {
  stream: (tenantId, id) => `compliance.assessment-${tenantId}-${id}`,
  eventTypes: Object.keys(AssessmentEventSchemas) as AssessmentEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveAssessment,
  read: readAssessmentEvent,
};

/** Entities per `VerdictsAssessed` event: one append, events small enough to read back. */
export const ASSESSMENT_BATCH_SIZE = 500;
