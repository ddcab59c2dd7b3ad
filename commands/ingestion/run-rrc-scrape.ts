import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import { ValidationFailed } from '../../src/platform/domain-errors';
import { scrapeFacts } from './graph-facts';
import {
  type DateRange,
  defaultRange,
  RRC_DATA_TYPES,
  RRC_DISTRICTS,
  type RrcDataType,
  simulateRrc,
} from './rrc-simulator';
import { rrcScrapeAggregate, type RrcScrapeEvent, type RrcScrapeState } from '../../streams/ingestion/rrc-scrape';
import { feedGraph, type FeedDeps, type FeedResult } from './feed-graph';

const isoDate = z
  .string()
  .max(10)
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(d)), 'not a calendar date');

export const RrcScrapeBody = z
  .object({
    data_types: z.array(z.enum(RRC_DATA_TYPES)).min(1).max(RRC_DATA_TYPES.length),
    district: z
      .string()
      .max(8)
      .transform((d) =>
        d
          .toUpperCase()
          .replace(/^(\d)([A-Z]?)$/, '0$1$2')
          .replace(/^0(\d[A-Z])$/, '$1'),
      )
      .refine((d) => (RRC_DISTRICTS as readonly string[]).includes(d), `one of ${RRC_DISTRICTS.join(', ')}`)
      .default('08'),
    date_range: z
      .object({ from: isoDate, to: isoDate })
      .refine((r) => r.from <= r.to, { message: 'from must not be after to', path: ['to'] })
      .refine((r) => Date.parse(r.to) - Date.parse(r.from) <= 3 * 366 * 86_400_000, {
        message: 'at most three years',
        path: ['to'],
      })
      .optional(),
  })
  .strict();
export type RrcScrapeRequest = z.infer<typeof RrcScrapeBody>;

export interface RecordRrcScrape {
  type: 'RecordRrcScrape';
  scrapeId: string;
  district: string;
  dateRange: DateRange;
  batches: Array<{ dataType: RrcDataType; records: Array<Record<string, unknown>> }>;
}

/** A scrape is recorded once: the same request finds its stream completed and appends nothing. */
export function decideRecordRrcScrape(command: RecordRrcScrape, state: RrcScrapeState): RrcScrapeEvent[] {
  switch (command.type) {
    case 'RecordRrcScrape': {
      if (state.status === 'completed') return [];
      const { scrapeId, district, dateRange } = command;
      const counts = Object.fromEntries(command.batches.map((b) => [b.dataType, b.records.length]));
      return [
        ...command.batches.map((b): RrcScrapeEvent => ({
          type: 'RrcDataScraped',
          data: { scrapeId, dataType: b.dataType, district, dateRange, records: b.records },
        })),
        { type: 'RrcScrapeCompleted', data: { scrapeId, district, dateRange, counts } },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

export const recordRrcScrapeDecider: Decider<RecordRrcScrape, RrcScrapeState, RrcScrapeEvent> = {
  ...rrcScrapeAggregate,
  decide: decideRecordRrcScrape,
};

export interface RrcScrapeResult {
  scrape_id: string;
  district: string;
  date_range: DateRange;
  data_types: RrcDataType[];
  counts: Record<string, number>;
  /** False when the same scrape was recorded before (nothing new appended). */
  recorded: boolean;
  graph: FeedResult;
}

/** The order entities must reach the graph: endpoints before the edges that join them. */
const FEED_ORDER: RrcDataType[] = ['operators', 'leases', 'wells', 'permits', 'flaring', 'production'];

export async function runRrcScrape(
  deps: FeedDeps,
  context: CommandContext,
  request: RrcScrapeRequest,
  now: Date,
): Promise<RrcScrapeResult> {
  const dateRange = request.date_range ?? defaultRange(now);
  if (dateRange.to > now.toISOString().slice(0, 10) && dateRange.from > now.toISOString().slice(0, 10)) {
    throw new ValidationFailed([
      {
        loc: ['body', 'date_range', 'from'],
        msg: 'the range lies entirely in the future',
        type: 'value_error.date_range',
      },
    ]);
  }
  const dataTypes = FEED_ORDER.filter((t) => request.data_types.includes(t));
  const scrapeId = derivedUuid(
    'ingestion.rrc-scrape',
    context.tenantId,
    request.district,
    dataTypes.join(','),
    dateRange.from,
    dateRange.to,
  );
  const records = simulateRrc(request.district, dataTypes, dateRange);
  const batches = dataTypes.map((dataType) => ({
    dataType,
    records: records[dataType] as unknown as Array<Record<string, unknown>>,
  }));
  const command: RecordRrcScrape = {
    type: 'RecordRrcScrape',
    scrapeId,
    district: request.district,
    dateRange,
    batches,
  };
  // Event ids derive from the scrape, so even two identical requests racing append once.
  const { events } = await deps.handle(
    recordRrcScrapeDecider,
    rrcScrapeAggregate.stream(context.tenantId, scrapeId),
    command,
    { ...context, idempotencyKey: `rrc-scrape:${scrapeId}` },
  );

  const actor = { tenantId: context.tenantId, userId: context.actorId };
  const graph: FeedResult = {
    created: 0,
    updated: 0,
    unchanged: 0,
    edges_created: 0,
    production_reports: 0,
    skipped: 0,
  };
  for (const batch of batches) {
    const fed = await feedGraph(deps, actor, scrapeFacts(batch.dataType, batch.records), {
      source: 'rrc-scrape',
      description: `RRC ${batch.dataType} for district ${request.district}, ${dateRange.from} to ${dateRange.to}`,
    });
    for (const k of Object.keys(graph) as Array<keyof FeedResult>) graph[k] += fed[k];
  }
  return {
    scrape_id: scrapeId,
    district: request.district,
    date_range: dateRange,
    data_types: dataTypes,
    counts: Object.fromEntries(batches.map((b) => [b.dataType, b.records.length])),
    recorded: events.length > 0,
    graph,
  };
}
