import { z } from 'zod';

/**
 * The one event by which other contexts hand an anomaly to the compliance dashboard
 * (its `anomalies` bucket): SCADA ingestion (flared volume above the authorization, a
 * reading from an unknown well) and operational events (a logged flaring or SCADA anomaly)
 * append it to their own streams; the compliance projection reads it from any stream.
 */
export const COMPLIANCE_ANOMALY_FLAGGED = 'ComplianceAnomalyFlagged' as const;

export const ComplianceAnomalyFlaggedData = z.object({
  /** The graph entity the anomaly is about (a Well's entity_id, usually its API number). */
  entityId: z.string(),
  entityLabel: z.string(),
  /** Compliance domain key, e.g. `rule_32`, `production`. */
  domain: z.string(),
  /** Machine-readable kind, e.g. `flared_above_authorization`, `unknown_well`. */
  kind: z.string(),
  detail: z.string(),
  /** When the anomalous fact was observed (ISO 8601). */
  observedAt: z.string(),
  source: z.enum(['scada', 'ingestion', 'operational_event']),
});
export type ComplianceAnomalyFlaggedData = z.infer<typeof ComplianceAnomalyFlaggedData>;

export type ComplianceAnomalyFlagged = { type: typeof COMPLIANCE_ANOMALY_FLAGGED; data: ComplianceAnomalyFlaggedData };
