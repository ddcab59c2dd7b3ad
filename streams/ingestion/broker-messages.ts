import { batchWells } from './operator-csv-import';

/**
 * The broker message names (`{event_type, data}` on `entity-extraction-worker`;
 * `wells_scraped` is the one consumers already read). A scrape's records go out per data
 * type (`wells_scraped`, `permits_scraped`, …); CSV batches as `operator_wells_imported`.
 */
export const ENTITY_EXTRACTION_TOPIC = 'entity-extraction-worker';

export const PUBLISHED_EVENT_TYPES = [
  'RrcDataScraped',
  'RrcScrapeCompleted',
  'OperatorWellsImported',
  'PackedOperatorWellsImported',
  'OperatorCsvImportCompleted',
  'EntitiesExtracted',
] as const;

export function brokerEventType(type: string, data: Record<string, unknown>): string {
  switch (type) {
    case 'RrcDataScraped':
      return `${String(data.dataType)}_scraped`;
    case 'RrcScrapeCompleted':
      return 'rrc_scrape_completed';
    case 'OperatorWellsImported':
    case 'PackedOperatorWellsImported':
      return 'operator_wells_imported';
    case 'OperatorCsvImportCompleted':
      return 'operator_csv_imported';
    case 'EntitiesExtracted':
      return 'entities_extracted';
    default:
      return type.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  }
}

/**
 * The message's `data`: the event's, except that packed CSV batches go out as consumers have
 * always received them, `{importId, batch, wells: [{apiNumber, row, values}]}`.
 */
export function brokerData(type: string, data: Record<string, unknown>): Record<string, unknown> {
  if (type !== 'PackedOperatorWellsImported') return data;
  return { importId: data.importId, batch: data.batch, wells: batchWells(type, data) };
}
