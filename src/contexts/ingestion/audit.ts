import type { z } from 'zod';
import {
  COMPLIANCE_ANOMALY_FLAGGED,
  type ComplianceAnomalyFlaggedData,
} from '../../platform/published/anomaly-flagged';
import {
  entityExtractionAggregate,
  type EntityExtractionEventSchemas,
} from '../../../streams/ingestion/entity-extraction';
import {
  batchWells,
  operatorCsvImportAggregate,
  type OperatorCsvImportEventSchemas,
} from '../../../streams/ingestion/operator-csv-import';
import { rrcScrapeAggregate, type RrcScrapeEventSchemas } from '../../../streams/ingestion/rrc-scrape';
import { scadaBatchAggregate, type ScadaBatchEventSchemas } from '../../../streams/ingestion/scada-batch';
import { type AuditCatalog } from '../../platform/audit/catalog';

type Data<S extends Record<string, z.ZodTypeAny>, K extends keyof S> = z.infer<S[K]>;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const range = (r: { from: string; to: string }) => `${r.from} to ${r.to}`;

/**
 * Ingestion: RRC scrapes, operator CSV imports, SCADA batches and text extractions, each
 * event in words. No reviewer flag of its own: what ingestion fed to the graph is found with
 * the graph's `--well` / `--entity` (its vertices and edges carry their own history).
 */
export const ingestionAuditCatalog: AuditCatalog = {
  aggregates: [
    {
      kind: 'rrc-scrape',
      aggregate: rrcScrapeAggregate,
      describe(event) {
        switch (event.type) {
          case 'RrcDataScraped': {
            const d = event.data as Data<typeof RrcScrapeEventSchemas, 'RrcDataScraped'>;
            return `scraped ${plural(d.records.length, 'record')} of ${d.dataType} in district ${d.district} (${range(d.dateRange)})`;
          }
          case 'RrcScrapeCompleted': {
            const d = event.data as Data<typeof RrcScrapeEventSchemas, 'RrcScrapeCompleted'>;
            const counts = Object.entries(d.counts)
              .map(([type, n]) => `${n} ${type}`)
              .join(', ');
            return `scrape of district ${d.district} (${range(d.dateRange)}) completed: ${counts || 'nothing found'}`;
          }
          default:
            return undefined;
        }
      },
    },
    {
      kind: 'operator-csv-import',
      aggregate: operatorCsvImportAggregate,
      describe(event) {
        switch (event.type) {
          case 'OperatorCsvImportStarted': {
            const d = event.data as Data<typeof OperatorCsvImportEventSchemas, 'OperatorCsvImportStarted'>;
            return `import of ${d.filename} started (${d.sizeBytes} bytes, SHA-256 ${d.sha256.slice(0, 12)}…, ${plural(d.columns.length, 'column')})`;
          }
          case 'OperatorWellsImported':
          case 'PackedOperatorWellsImported': {
            const { batch } = event.data as { batch: number };
            const wells = batchWells(event.type, event.data);
            const rows = wells.length > 0 ? ` (rows ${wells[0].row}–${wells[wells.length - 1].row})` : '';
            return `batch ${batch + 1}: ${plural(wells.length, 'well')} imported${rows}`;
          }
          case 'OperatorCsvImportCompleted': {
            const d = event.data as Data<typeof OperatorCsvImportEventSchemas, 'OperatorCsvImportCompleted'>;
            return `import completed: ${plural(d.rows, 'row')}, ${d.accepted} accepted, ${d.rejected} rejected, in ${plural(d.batches, 'batch', 'batches')}`;
          }
          default:
            return undefined;
        }
      },
    },
    {
      kind: 'scada-batch',
      aggregate: scadaBatchAggregate,
      describe(event) {
        switch (event.type) {
          case 'ScadaReadingsRecorded': {
            const d = event.data as Data<typeof ScadaBatchEventSchemas, 'ScadaReadingsRecorded'>;
            return `${plural(d.readings.length, 'reading')} of ${plural(new Set(d.readings.map((r) => r.wellApi)).size, 'well')} recorded`;
          }
          case COMPLIANCE_ANOMALY_FLAGGED: {
            const d = event.data as ComplianceAnomalyFlaggedData;
            return `${d.domain} anomaly flagged on ${d.entityLabel} ${d.entityId} (${d.kind}): ${d.detail}`;
          }
          default:
            return undefined;
        }
      },
    },
    {
      kind: 'text-extraction',
      aggregate: entityExtractionAggregate,
      describe(event) {
        if (event.type !== 'EntitiesExtracted') return undefined;
        const d = event.data as Data<typeof EntityExtractionEventSchemas, 'EntitiesExtracted'>;
        const named = d.entities.map((e) => `${e.type} ${e.api_number ?? e.name}`);
        return `${plural(d.entities.length, 'entity', 'entities')} [${named.join(', ')}] and ${plural(d.edges.length, 'edge')} extracted from text ${d.textSha256.slice(0, 12)}…`;
      },
    },
  ],
};
