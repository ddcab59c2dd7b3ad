import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import { Conflict, ValidationFailed } from '../../src/platform/domain-errors';
import {
  type ExpectedRevision,
  type NewEvent,
  type Position,
  WrongExpectedRevisionError,
} from '../../src/platform/eventstore/types';
import { CsvFileRejected, type RowRejection, stageCsv, stagedBatches, type StagedCsv } from './csv-wells';
import { csvFacts } from './graph-facts';
import {
  operatorCsvImportAggregate,
  type OperatorCsvImportEvent,
  type OperatorCsvImportState,
  packWells,
} from '../../streams/ingestion/operator-csv-import';
import { IMPORT_EVENT_TYPES } from '../../streams/graph/graph-import';
import { IMPORT_HISTORY_EVENT_TYPES } from '../../projections/ingestion/import-history';
import { commitFeed, type FeedDeps, type FeedPlan, type FeedResult, planFeed } from './feed-graph';
import { loadImportSchema } from '../graph/import-graph';

/** Rows per PackedOperatorWellsImported event (≈ 150 kB) and per graph feed. */
export const CSV_EVENT_BATCH = 1000;
export const CSV_FEED_BATCH = 2000;
const CSV_PROJECTION_WAIT_MS = 600_000;
/** Graph feeds the projection may lag behind during one file. */
const PROJECTION_LAG_BATCHES = 3;
/** Batch events per append: one round trip for a few MB. */
const EVENTS_PER_APPEND = 8;

export interface StartCsvImport {
  type: 'StartCsvImport';
  importId: string;
  filename: string;
  sha256: string;
  sizeBytes: number;
  columns: string[];
}

/** The same file again (same hash in the tenant) finds its import started and starts nothing. */
export function decideStartCsvImport(command: StartCsvImport, state: OperatorCsvImportState): OperatorCsvImportEvent[] {
  switch (command.type) {
    case 'StartCsvImport': {
      if (state.status !== 'none') return [];
      const { importId, filename, sha256, sizeBytes, columns } = command;
      return [{ type: 'OperatorCsvImportStarted', data: { importId, filename, sha256, sizeBytes, columns } }];
    }
    default:
      return assertNever(command.type);
  }
}

export const startCsvImportDecider: Decider<StartCsvImport, OperatorCsvImportState, OperatorCsvImportEvent> = {
  ...operatorCsvImportAggregate,
  decide: decideStartCsvImport,
};

export interface CsvImportResult {
  import_id: string;
  filename: string;
  sha256: string;
  size_bytes: number;
  columns: string[];
  rows: number;
  accepted: number;
  rejected: number;
  rejections: RowRejection[];
  /** True when rejections beyond the reported ones were counted but not listed. */
  rejections_truncated: boolean;
  /** False when this file was imported before: its record is reused, the graph only re-checked. */
  recorded: boolean;
  graph: FeedResult;
}

export interface CsvImportDeps extends FeedDeps {
  logger: Logger;
}

function fileRejected(error: CsvFileRejected): ValidationFailed {
  return new ValidationFailed([
    {
      loc: ['body', 'file', ...(error.row !== undefined ? [error.row] : []), error.column],
      msg: error.reason,
      type: error.kind,
    },
  ]);
}

/**
 * Stage (stream, validate, write accepted rows to a temporary file), then append: a file
 * that fails as a whole (encoding, no API column, broken quoting) appends nothing; rows
 * that fail alone are reported and left out. The import's record is the batches of its
 * stream; the graph is then fed through the graph commands, batch by batch, and re-importing
 * the same API numbers updates those wells instead of adding new ones.
 */
export async function importOperatorCsv(
  deps: CsvImportDeps,
  context: CommandContext,
  file: { filename: string; stream: Readable },
): Promise<CsvImportResult> {
  let staged: StagedCsv;
  try {
    staged = await stageCsv(file.stream, {
      onProgress: (rows) => deps.logger.info({ rows, filename: file.filename }, 'operator csv: rows validated'),
    });
  } catch (error) {
    if (error instanceof CsvFileRejected) throw fileRejected(error);
    throw error;
  }
  try {
    const report = {
      rows: staged.rows,
      accepted: staged.accepted,
      rejected: staged.rejected,
      rejections: staged.rejections,
    };
    if (staged.accepted === 0) {
      throw new ValidationFailed(
        [
          {
            loc: ['body', 'file'],
            msg:
              staged.rows === 0
                ? 'the file has a header but no rows'
                : `none of the ${staged.rows} rows could be imported`,
            type: 'value_error.no_rows',
          },
        ],
        { report },
      );
    }
    const importId = derivedUuid('ingestion.csv-import', context.tenantId, staged.sha256);
    const stream = operatorCsvImportAggregate.stream(context.tenantId, importId);
    const started = await deps.handle(
      startCsvImportDecider,
      stream,
      {
        type: 'StartCsvImport',
        importId,
        filename: file.filename,
        sha256: staged.sha256,
        sizeBytes: staged.sizeBytes,
        columns: staged.columns,
      },
      { ...context, idempotencyKey: undefined },
    );
    const recorded = started.state.status !== 'completed';

    const actor = { tenantId: context.tenantId, userId: context.actorId };
    const graph: FeedResult = {
      created: 0,
      updated: 0,
      unchanged: 0,
      edges_created: 0,
      production_reports: 0,
      skipped: 0,
    };
    // Pipelined: the next batch is read, turned into facts and planned (its lookups included)
    // while the batch before it is written; the plan counts what that batch writes as the
    // graph's, so the outcome is the one of feeding batch after batch.
    const feed = async () => {
      let fedRows = 0;
      let last: Position | null = null;
      const createdEarlier = new Set<string>();
      const schema = await loadImportSchema(deps.knex);
      const behind: Position[] = [];
      const options = { waitForProjection: false, createdEarlier, schema };
      let writing: { plan: FeedPlan; rows: number; done: Promise<FeedResult & { position: Position | null }> } | null =
        null;
      const settle = async () => {
        if (!writing) return;
        const fed = await writing.done;
        for (const k of Object.keys(graph) as Array<keyof FeedResult>) graph[k] += fed[k];
        // The projection may run a few batches behind, never more: its backlog (and the
        // memory it reads a backlog with) stays bounded however long the file.
        if (fed.position) behind.push(fed.position);
        if (behind.length > PROJECTION_LAG_BATCHES)
          await deps.projections.waitFor(behind.shift()!, CSV_PROJECTION_WAIT_MS, IMPORT_EVENT_TYPES);
        last = fed.position ?? last;
        fedRows += writing.rows;
        deps.logger.info({ importId, rows: fedRows, of: staged.accepted }, 'operator csv: rows applied to the graph');
        writing = null;
      };
      try {
        for await (const wells of stagedBatches(staged.path, CSV_FEED_BATCH)) {
          const plan = await planFeed(deps, actor, csvFacts(wells), { ...options, inFlight: writing?.plan });
          await settle();
          const done = commitFeed(
            deps,
            actor,
            plan,
            {
              source: 'operator-csv',
              description: `operator CSV ${file.filename} (rows ${wells[0].row}–${wells[wells.length - 1].row})`,
            },
            options,
          );
          // Awaited by the next round's settle; a failure meanwhile is not left unhandled.
          done.catch(() => undefined);
          writing = { plan, rows: wells.length, done };
        }
        await settle();
      } finally {
        // Nothing keeps writing once this returns or throws.
        await (writing as { done: Promise<unknown> } | null)?.done.catch(() => undefined);
      }
      return last;
    };
    // The import's record and the graph feed both read the staged rows and run side by side;
    // either can be repeated after a failure without doubling anything.
    // Both finish before the staging file goes, even when one fails.
    const [recording, feeding] = await Promise.allSettled([
      recorded ? appendBatches(deps, context, stream, importId, started.state, staged) : Promise.resolve(null),
      feed(),
    ]);
    if (recording.status === 'rejected') throw recording.reason;
    if (feeding.status === 'rejected') throw feeding.reason;
    const last = feeding.value;
    // Read-your-writes once for the whole file: the graph holds every row, and the import
    // history shows it completed, when this answers.
    if (last) await deps.projections.waitFor(last, CSV_PROJECTION_WAIT_MS, IMPORT_EVENT_TYPES);
    if (recording.value)
      await deps.projections.waitFor(recording.value, CSV_PROJECTION_WAIT_MS, IMPORT_HISTORY_EVENT_TYPES);
    return {
      import_id: importId,
      filename: file.filename,
      sha256: staged.sha256,
      size_bytes: staged.sizeBytes,
      columns: staged.columns,
      ...report,
      rejections_truncated: staged.rejected > staged.rejections.length,
      recorded,
      graph,
    };
  } finally {
    await staged.discard();
  }
}

/**
 * The rows after the ones a previous, interrupted attempt already appended (counted in rows,
 * since its batches may have been of another size; event ids derive from the import and the
 * batch, so a retry never doubles one), then the completion.
 */
async function appendBatches(
  deps: FeedDeps,
  context: CommandContext,
  stream: string,
  importId: string,
  state: OperatorCsvImportState,
  staged: StagedCsv,
): Promise<Position> {
  const doneRows = state.status === 'importing' ? state.rows : 0;
  const metadata = {
    tenantId: context.tenantId,
    actorId: context.actorId,
    correlationId: context.correlationId ?? importId,
    causationId: context.causationId ?? context.correlationId ?? importId,
  };
  const head = await deps.store.readStream(stream, { direction: 'backwards', limit: 1 });
  let expected: ExpectedRevision = head[0].revision;
  let batch = state.status === 'importing' ? state.batches : 0;
  let skipped = 0;
  let pending: NewEvent[] = [];
  let position: Position | null = null;
  const flush = async () => {
    if (pending.length === 0) return;
    try {
      const appended = await deps.store.append(stream, pending, { expectedRevision: expected });
      expected = appended.nextRevision;
      position = appended.position;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError)
        throw new Conflict('this file is being imported by another request; retry when it has finished');
      throw error;
    }
    pending = [];
  };
  for await (const rows of stagedBatches(staged.path, CSV_EVENT_BATCH)) {
    let wells = rows;
    if (skipped < doneRows) {
      const skip = Math.min(doneRows - skipped, wells.length);
      skipped += skip;
      wells = wells.slice(skip);
      if (wells.length === 0) continue;
    }
    const event: OperatorCsvImportEvent = {
      type: 'PackedOperatorWellsImported',
      data: packWells(importId, batch, wells),
    };
    pending.push({ id: derivedUuid('ingestion.csv-batch', importId, String(batch)), ...event, metadata });
    if (pending.length >= EVENTS_PER_APPEND) await flush();
    batch++;
  }
  const completed: OperatorCsvImportEvent = {
    type: 'OperatorCsvImportCompleted',
    data: {
      importId,
      rows: staged.rows,
      accepted: staged.accepted,
      rejected: staged.rejected,
      batches: batch,
      rejections: staged.rejections,
    },
  };
  pending.push({ id: derivedUuid('ingestion.csv-completed', importId), ...completed, metadata });
  await flush();
  return position!;
}
