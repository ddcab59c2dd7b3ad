import type { Knex } from 'knex';
import type { AssessmentEvent } from '../../streams/compliance/assessment';
import { COUNTS, ENTITIES, ROWS, VERDICTS } from './tables';
import { BULK_ELEMENTS } from '../../src/platform/infra/prepared-statements';

export const SEVERITY_SQL = (column: string) =>
  `CASE ${column} WHEN 'red' THEN 4 WHEN 'amber' THEN 3 WHEN 'blue' THEN 2 WHEN 'green' THEN 1 ELSE 0 END`;

/** The per-bucket and per-worst-color tallies a `COUNTS` version holds. */
export const COUNT_COLUMNS = [
  'overdue',
  'due_7d',
  'due_30d',
  'anomalies',
  'entities',
  'red',
  'amber',
  'blue',
  'green',
  'grey',
] as const;
export type CountColumn = (typeof COUNT_COLUMNS)[number];

/**
 * The matrix is filtered by type, status (worst severity), bucket and searched; sorted by
 * name, id, type, status or next due date and paged deep. Every current row is served by a
 * partial index (`valid_to IS NULL`) in the sort order of the documented `sort_by`s, and each
 * bucket has its own, so a filtered page walks an index instead of sorting the portfolio (a
 * type filter names the packs' labels and walks the type index). As-of reads walk all versions
 * by name (or a bucket's). Every index costs each row version an entry: a first assessment
 * closes and opens a version of every entity.
 */
export async function createRowsTables(knex: Knex): Promise<void> {
  await knex.schema.createTable(VERDICTS, (t) => {
    t.text('tenant_id').notNullable();
    t.text('entity_id').notNullable();
    /** domain → [color, bucket, due date, anomaly] of the entity's current cell (`VerdictSummary`). */
    t.jsonb('cells').notNullable();
    t.primary(['tenant_id', 'entity_id']);
  });
  // No surrogate key: a refresh closes the current versions it read by their `ctid` (a TID
  // scan, in the statement that read them), and a primary key index cost every version one entry more.
  await knex.schema.createTable(ROWS, (t) => {
    t.text('tenant_id').notNullable();
    t.text('entity_id').notNullable();
    t.text('entity_type').notNullable();
    t.text('entity_name').notNullable();
    /** domain → color of the entity's current cells (installed domains only; absent = grey). */
    t.jsonb('domains').notNullable();
    /** Worst cell: 4 red, 3 amber, 2 blue, 1 green, 0 grey. */
    t.smallint('severity').notNullable();
    t.boolean('in_overdue').notNullable();
    t.boolean('in_due_7d').notNullable();
    t.boolean('in_due_30d').notNullable();
    /** A cell's explicit anomaly flag; flagged anomalies are laid over at read time (they expire). */
    t.boolean('in_anomalies').notNullable();
    t.date('next_due');
    t.timestamp('valid_from', { useTz: true }).notNullable();
    t.timestamp('valid_to', { useTz: true });
    t.index(['tenant_id', 'entity_name', 'entity_id'], 'compliance_rows_versions_by_name');
  });
  const current = (name: string, columns: string, where = '') =>
    knex.raw(`CREATE INDEX ${name} ON ${ROWS} (${columns}) WHERE valid_to IS NULL ${where}`);
  await knex.raw(`CREATE INDEX compliance_rows_current ON ${ROWS} (tenant_id, entity_id) WHERE valid_to IS NULL`);
  await current('compliance_rows_by_name', 'tenant_id, entity_name, entity_id');
  await current('compliance_rows_by_type', 'tenant_id, entity_type, entity_name, entity_id');
  // Status ascending is the most severe first, then the soonest due, names ascending either way:
  // one index per direction.
  await current('compliance_rows_by_severity', 'tenant_id, severity, next_due NULLS LAST, entity_name, entity_id');
  await current(
    'compliance_rows_by_severity_desc',
    'tenant_id, severity DESC, next_due NULLS LAST, entity_name, entity_id',
  );
  await current('compliance_rows_by_due', 'tenant_id, next_due, entity_name, entity_id');
  await current('compliance_rows_by_due_desc', 'tenant_id, next_due DESC NULLS LAST, entity_name, entity_id');
  // Bucket indexes hold every version (not only current ones): an as-of page of a bucket walks
  // them too, and the closed versions a current page skips are few.
  for (const bucket of ['overdue', 'due_7d', 'due_30d', 'anomalies'])
    await knex.raw(
      `CREATE INDEX compliance_rows_${bucket} ON ${ROWS} (tenant_id, entity_name, entity_id) WHERE in_${bucket}`,
    );
  await knex.schema.createTable(COUNTS, (t) => {
    t.bigIncrements('id');
    t.text('tenant_id').notNullable();
    t.timestamp('valid_from', { useTz: true }).notNullable();
    for (const column of COUNT_COLUMNS) t.integer(column).notNullable();
    t.index(['tenant_id', 'valid_from', 'id'], 'compliance_bucket_counts_tenant');
  });
}

const tally = (alias: string) => [
  `count(*) FILTER (WHERE ${alias}.in_overdue)`,
  `count(*) FILTER (WHERE ${alias}.in_due_7d)`,
  `count(*) FILTER (WHERE ${alias}.in_due_30d)`,
  `count(*) FILTER (WHERE ${alias}.in_anomalies)`,
  'count(*)',
  ...[4, 3, 2, 1, 0].map((s) => `count(*) FILTER (WHERE ${alias}.severity = ${s})`),
];

/** What a dashboard row needs of one current cell: [color, bucket, due date, anomaly]. */
export type VerdictSummary = [string, string | null, string | null, boolean];
/** Entity id → domain → its verdict, for a run of verdict batches. */
export type VerdictSummaries = Record<string, Record<string, VerdictSummary>>;

/**
 * Adds a verdict batch's summaries to `into`, read straight from the packed cells: the rows
 * need neither the reasons nor the facts, so nothing is unpacked.
 */
export function summarizeVerdicts(event: AssessmentEvent, into: VerdictSummaries): void {
  if (event.type === 'VerdictsAssessed') {
    const { domains, entities } = event.data;
    for (const [entityId, , , cells] of entities) {
      const summary = (into[entityId] ??= {});
      for (const c of cells) summary[domains[c[0]]] = [c[1], c[2], c[3], c[4]];
    }
  } else if (event.type === 'EntitiesAssessed') {
    for (const e of event.data.entities) {
      const summary = (into[e.entityId] ??= {});
      for (const c of e.cells) summary[c.domain] = [c.color, c.bucket, c.dueDate, c.anomaly];
    }
  }
}

/**
 * Keeps each entity's current verdicts (`VERDICTS`: one row per entity, its domains' colors,
 * buckets, due dates and anomaly flags) from a run of verdict batches: a domain assessed
 * replaces that domain's verdict, the others stay (a failed pack's verdicts stay current, as
 * its cells do). Answers the entities whose verdicts changed: their rows follow.
 *
 * This is what the rows were computed from before (the current cell versions), held apart
 * so the rows need not wait for the cell versions' lane.
 */
export async function writeVerdicts(
  trx: Knex.Transaction,
  tenantId: string,
  summaries: VerdictSummaries,
): Promise<string[]> {
  // Unchanged verdicts are left out before the upsert: an upsert would still lock (write) their rows.
  const { rows } = await trx.raw(
    `WITH merged AS (
        SELECT s.key AS entity_id, coalesce(v.cells, '{}'::jsonb) || s.value AS cells, v.cells AS before
          FROM jsonb_each(CAST(:summaries AS jsonb)) AS s
          LEFT JOIN ${VERDICTS} v ON v.tenant_id = :tenant AND v.entity_id = s.key)
     INSERT INTO ${VERDICTS} (tenant_id, entity_id, cells)
     SELECT :tenant, entity_id, cells FROM merged WHERE before IS NULL OR cells <> before
     ON CONFLICT (tenant_id, entity_id) DO UPDATE SET cells = excluded.cells
     RETURNING entity_id`,
    { tenant: tenantId, summaries: JSON.stringify(summaries) },
  );
  return (rows as Array<{ entity_id: string }>).map((r) => r.entity_id);
}

/**
 * A refresh of at most this many entities (a command's: a vertex created, a property changed)
 * is a named statement, planned once per connection: unnamed, its planning cost five times its
 * run (1.3 against 0.26 ms), and `POST /graph/entities` waits for it. A bulk refresh (an import
 * batch, an assessment of thousands) stays unnamed, so it is planned for its size: the
 * prepared statements' own bulk bound, so a call named here is never one they call bulk.
 */
const FEW = BULK_ELEMENTS;

/** The current version of each entity of `:ids` (the latest, should one be opened twice), with its row's name. */
const ALIVE_SQL = `
        SELECT DISTINCT ON (e.entity_id) e.entity_id, e.entity_type, coalesce(e.name_prop, e.well_name_prop, e.entity_id) AS entity_name
          FROM ${ENTITIES} e
         WHERE e.tenant_id = :tenant AND e.entity_id = ANY(CAST(:ids AS text[])) AND e.valid_to IS NULL
         ORDER BY e.entity_id, e.id DESC`;

type CountDelta = Record<CountColumn, number>;
const noDelta = (): CountDelta => Object.fromEntries(COUNT_COLUMNS.map((column) => [column, 0])) as CountDelta;

/**
 * Recomputes the dashboard rows of some entities from their current entity version and
 * current verdicts (`VERDICTS`; what the as-of selector used to compute per request), at `at` — the recorded
 * time of the event that changed them. A row whose content changed is closed and a new version
 * opened; an entity no longer alive is closed. The tenant's counts move by the difference of
 * the closed and opened rows, so they stay equal to a count over the rows without one.
 */
export async function refreshRows(
  trx: Knex.Transaction,
  tenantId: string,
  at: Date,
  entityIds: readonly string[],
  domains: readonly string[],
): Promise<void> {
  await moveCounts(trx, tenantId, [{ at, delta: await changeRows(trx, tenantId, at, entityIds, domains) }]);
}

/** An entity a graph event opened (created, imported), at the event's recorded time. */
export interface Opening {
  entityId: string;
  at: Date;
}

/**
 * The rows of entities just opened, by a run of graph events (an import of 100,000
 * rows opens thousands in one event; `POST /graph/entities` under load brings the lane runs
 * of single creations): those without verdicts and without a current row, nearly all of
 * them, are opened grey in one plain insert, each at its own event's time, without the
 * verdicts' lateral, the comparison with current rows and the before/after tallies. The
 * others (an entity that comes back with its verdicts) are refreshed at the run's last time.
 * The counts move in one insert: a version at each opening time, then the refreshed ones'.
 */
export async function openRows(
  trx: Knex.Transaction,
  tenantId: string,
  openings: readonly Opening[],
  domains: readonly string[],
): Promise<void> {
  if (openings.length === 0) return;
  // An entity opened twice in the run (two vertices share an entity_id) takes its latest time.
  const latest = new Map<string, Date>();
  for (const { entityId, at } of openings) latest.set(entityId, at);
  const ids = [...latest.keys()];
  const last = new Date(openings.reduce((max, o) => Math.max(max, o.at.getTime()), -Infinity));
  // An import's batch opens thousands at one time: a single time is sent once, not per entity.
  const oneTime = openings.every((o) => o.at.getTime() === last.getTime());
  const { rows } = await trx
    .raw(
      // The known entities are looked up by `= ANY(array)`, once, as the refresh does: a
      // correlated NOT EXISTS let the planner (no statistics on a table an import is filling)
      // scan every row per entity, quadratic over an import.
      `WITH alive AS (${ALIVE_SQL}),
      known AS (
        SELECT entity_id FROM ${VERDICTS} WHERE tenant_id = :tenant AND entity_id = ANY(CAST(:ids AS text[]))
        UNION
        SELECT entity_id FROM ${ROWS} WHERE tenant_id = :tenant AND entity_id = ANY(CAST(:ids AS text[])) AND valid_to IS NULL)
     INSERT INTO ${ROWS} (tenant_id, entity_id, entity_type, entity_name, domains, severity, in_overdue, in_due_7d, in_due_30d, in_anomalies, next_due, valid_from)
     SELECT :tenant, a.entity_id, a.entity_type, a.entity_name, '{}'::jsonb, 0, false, false, false, false, NULL, ${oneTime ? 'CAST(:at AS timestamptz)' : 't.at'}
       FROM alive a
       ${oneTime ? '' : 'JOIN unnest(CAST(:ids AS text[]), CAST(:ats AS timestamptz[])) AS t(entity_id, at) ON t.entity_id = a.entity_id'}
      WHERE a.entity_id NOT IN (SELECT entity_id FROM known)
     RETURNING entity_id`,
      oneTime
        ? { ids, at: last, tenant: tenantId }
        : { ids, ats: ids.map((id) => latest.get(id)!.toISOString()), tenant: tenantId },
    )
    .options(ids.length <= FEW ? { name: oneTime ? 'compliance-open-rows' : 'compliance-open-rows-at' } : {});
  const opened = new Set((rows as Array<{ entity_id: string }>).map((r) => r.entity_id));
  const steps = new Map<number, CountDelta>();
  for (const id of opened) {
    const at = latest.get(id)!.getTime();
    const step = steps.get(at) ?? noDelta();
    step.entities += 1;
    step.grey += 1;
    steps.set(at, step);
  }
  const refreshed = await changeRows(
    trx,
    tenantId,
    last,
    ids.filter((id) => !opened.has(id)),
    domains,
  );
  const atLast = steps.get(last.getTime()) ?? noDelta();
  for (const column of COUNT_COLUMNS) atLast[column] += refreshed[column];
  steps.set(last.getTime(), atLast);
  await moveCounts(
    trx,
    tenantId,
    [...steps].sort(([a], [b]) => a - b).map(([at, delta]) => ({ at: new Date(at), delta })),
  );
}

/** The statement of `refreshRows`: answers how the rows it closed and opened move the counts. */
async function changeRows(
  trx: Knex.Transaction,
  tenantId: string,
  at: Date,
  entityIds: readonly string[],
  domains: readonly string[],
): Promise<CountDelta> {
  if (entityIds.length === 0) return noDelta();
  const before = tally('c');
  const after = tally('o');
  const {
    rows: [delta],
  } = await trx
    .raw(
      // `= ANY(array)` rather than a join with unnest: the planner sizes an array and walks the
      // indexes for a few ids, where an unnest of unknown size made it loop over thousands.
      `WITH alive AS (${ALIVE_SQL}),
      fresh AS (
        SELECT a.entity_id, a.entity_type, a.entity_name, p.*
          FROM alive a
          LEFT JOIN ${VERDICTS} v ON v.tenant_id = :tenant AND v.entity_id = a.entity_id
          -- Each entity's few current verdicts ([color, bucket, due date, anomaly] by domain).
          CROSS JOIN LATERAL (
            SELECT coalesce(jsonb_object_agg(d.key, d.value->>0), '{}'::jsonb) AS domains,
                   coalesce(max(${SEVERITY_SQL('(d.value->>0)')}), 0)::smallint AS severity,
                   coalesce(bool_or(d.value->>1 = 'overdue'), false) AS in_overdue, coalesce(bool_or(d.value->>1 = 'due_7d'), false) AS in_due_7d,
                   coalesce(bool_or(d.value->>1 = 'due_30d'), false) AS in_due_30d, coalesce(bool_or((d.value->>3)::boolean), false) AS in_anomalies,
                   min((d.value->>2)::date) AS next_due
              FROM jsonb_each(coalesce(v.cells, '{}'::jsonb)) AS d
             WHERE d.key = ANY(CAST(:domains AS text[]))) p),
      cur AS (SELECT r.ctid AS row_id, r.* FROM ${ROWS} r WHERE r.tenant_id = :tenant AND r.entity_id = ANY(CAST(:ids AS text[])) AND r.valid_to IS NULL),
      changed AS (
        SELECT f.*, c.row_id AS previous
          FROM fresh f FULL JOIN cur c ON c.entity_id = f.entity_id
         WHERE c.row_id IS NULL OR f.entity_id IS NULL
            OR (f.entity_type, f.entity_name, f.domains, f.severity, f.in_overdue, f.in_due_7d, f.in_due_30d, f.in_anomalies, f.next_due)
               IS DISTINCT FROM (c.entity_type, c.entity_name, c.domains, c.severity, c.in_overdue, c.in_due_7d, c.in_due_30d, c.in_anomalies, c.next_due)),
      closed AS (
        UPDATE ${ROWS} r SET valid_to = :at FROM changed ch WHERE r.ctid = ch.previous RETURNING r.*),
      opened AS (
        INSERT INTO ${ROWS} (tenant_id, entity_id, entity_type, entity_name, domains, severity, in_overdue, in_due_7d, in_due_30d, in_anomalies, next_due, valid_from)
        SELECT :tenant, entity_id, entity_type, entity_name, domains, severity, in_overdue, in_due_7d, in_due_30d, in_anomalies, next_due, :at
          FROM changed WHERE entity_id IS NOT NULL
        RETURNING *)
     SELECT ${COUNT_COLUMNS.map((column, i) => `(SELECT ${after[i]} FROM opened o) - (SELECT ${before[i]} FROM closed c) AS ${column}`).join(', ')}`,
      { ids: [...entityIds], tenant: tenantId, domains: [...domains], at },
    )
    .options(entityIds.length <= FEW ? { name: 'compliance-refresh-rows' } : {});
  return Object.fromEntries(COUNT_COLUMNS.map((column) => [column, Number(delta[column])])) as CountDelta;
}

/**
 * New counts versions, one per step (in time order), each the one before moved by its
 * `delta` (none for a step where nothing moved); one read of the latest and one insert.
 */
async function moveCounts(
  trx: Knex.Transaction,
  tenantId: string,
  steps: ReadonlyArray<{ at: Date; delta: CountDelta }>,
): Promise<void> {
  const moving = steps.filter(({ delta }) => COUNT_COLUMNS.some((column) => delta[column] !== 0));
  if (moving.length === 0) return;
  const latest = await trx(COUNTS)
    .where({ tenant_id: tenantId })
    .orderBy([
      { column: 'valid_from', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first();
  const running = Object.fromEntries(
    COUNT_COLUMNS.map((column) => [column, latest ? Number(latest[column]) : 0]),
  ) as CountDelta;
  const versions = moving.map(({ at, delta }) => {
    for (const column of COUNT_COLUMNS) running[column] += delta[column];
    return { tenant_id: tenantId, valid_from: at, ...running };
  });
  await trx(COUNTS).insert(versions);
}
