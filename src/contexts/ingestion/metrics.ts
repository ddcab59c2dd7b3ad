import type { EventMeter } from '../../platform/observability/metrics';
import type { OperatorCsvImportEvent } from '../../../streams/ingestion/operator-csv-import';

type Completed = Extract<OperatorCsvImportEvent, { type: 'OperatorCsvImportCompleted' }>['data'];

/** Rows accepted and rejected, counted once per import from the event that closes it. */
export const ingestionMeters: EventMeter[] = [
  {
    types: ['OperatorCsvImportCompleted'],
    observe(event, metrics) {
      const { accepted, rejected } = event.data as Completed;
      metrics.importRows.inc({ kind: 'operator_csv', outcome: 'accepted' }, accepted);
      metrics.importRows.inc({ kind: 'operator_csv', outcome: 'rejected' }, rejected);
    },
  },
];
