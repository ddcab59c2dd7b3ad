import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * One simulated Railroad Commission scrape (`ingestion.rrc-scrape-<tenant>-<scrapeId>`).
 * The scrape id derives from the request (district, data types, date range), so the same
 * request addresses the same stream and, once completed, appends nothing again.
 */
const DateRange = z.object({ from: z.string(), to: z.string() });

export const RrcScrapeEventSchemas = {
  /** One data type's records (`wells`, `permits`, `production`, `flaring`, `operators`, `leases`). */
  RrcDataScraped: z.object({
    scrapeId: z.string(),
    dataType: z.string(),
    district: z.string(),
    dateRange: DateRange,
    records: z.array(z.record(z.unknown())),
  }),
  RrcScrapeCompleted: z.object({
    scrapeId: z.string(),
    district: z.string(),
    dateRange: DateRange,
    counts: z.record(z.number()),
  }),
};

export type RrcScrapeEvent = EventsOf<typeof RrcScrapeEventSchemas>;
export const readRrcScrapeEvent = eventReader('rrc scrape', RrcScrapeEventSchemas);

export type RrcScrapeState =
  | { status: 'none' }
  | { status: 'scraping'; dataTypes: string[] }
  | { status: 'completed'; counts: Record<string, number> };

export function evolveRrcScrape(state: RrcScrapeState, event: RrcScrapeEvent): RrcScrapeState {
  switch (event.type) {
    case 'RrcDataScraped':
      return {
        status: 'scraping',
        dataTypes: [...(state.status === 'scraping' ? state.dataTypes : []), event.data.dataType],
      };
    case 'RrcScrapeCompleted':
      return { status: 'completed', counts: event.data.counts };
  }
}

export const rrcScrapeAggregate: Aggregate<RrcScrapeState, RrcScrapeEvent> = {
  stream: (tenantId, id) => `ingestion.rrc-scrape-${tenantId}-${id}`,
  eventTypes: Object.keys(RrcScrapeEventSchemas) as RrcScrapeEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveRrcScrape,
  read: readRrcScrapeEvent,
};
