import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';
import { COMPLIANCE_ANOMALY_FLAGGED, ComplianceAnomalyFlaggedData } from '../../src/platform/published/anomaly-flagged';

/**
 * One accepted batch of SCADA readings (`ingestion.scada-<tenant>-<batchId>`) and the
 * anomalies it revealed, handed to the compliance dashboard as ComplianceAnomalyFlagged.
 */
export const ScadaReading = z.object({ wellApi: z.string(), timestamp: z.string(), metrics: z.record(z.number()) });
export type ScadaReading = z.infer<typeof ScadaReading>;

export const ScadaBatchEventSchemas = {
  ScadaReadingsRecorded: z.object({ batchId: z.string(), readings: z.array(ScadaReading) }),
  [COMPLIANCE_ANOMALY_FLAGGED]: ComplianceAnomalyFlaggedData,
} as const;

export type ScadaBatchEvent = EventsOf<typeof ScadaBatchEventSchemas>;
export const readScadaBatchEvent = eventReader('scada batch', ScadaBatchEventSchemas);

export type ScadaBatchState = { status: 'none' } | { status: 'recorded'; readings: number; anomalies: number };

export function evolveScadaBatch(state: ScadaBatchState, event: ScadaBatchEvent): ScadaBatchState {
  switch (event.type) {
    case 'ScadaReadingsRecorded':
      return { status: 'recorded', readings: event.data.readings.length, anomalies: 0 };
    case COMPLIANCE_ANOMALY_FLAGGED:
      return state.status === 'recorded' ? { ...state, anomalies: state.anomalies + 1 } : state;
  }
}

export const scadaBatchAggregate: Aggregate<ScadaBatchState, ScadaBatchEvent> = {
  stream: (tenantId, id) => `ingestion.scada-${tenantId}-${id}`,
  eventTypes: Object.keys(ScadaBatchEventSchemas) as ScadaBatchEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveScadaBatch,
  read: readScadaBatchEvent,
};
