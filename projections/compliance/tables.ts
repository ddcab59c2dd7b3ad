/**
 * The compliance dashboard's read model. Entities and cells are kept as versions with
 * `valid_from`/`valid_to` (the recorded times of the events that opened and closed them), so
 * the dashboard as it stood at any instant is a query, not a second model (as-of).
 * `ROWS` and `COUNTS` are that query done once, by the projector, as the events arrive: one
 * versioned row per entity (its colors, worst severity, buckets, next due date) and the
 * tenant's bucket counts after every change, so no request aggregates cells.
 */
export const ENTITIES = 'compliance_entities';
export const CELLS = 'compliance_cells';
/** Each entity's current verdict per domain: what its dashboard row is computed from. */
export const VERDICTS = 'compliance_entity_verdicts';
export const ANOMALIES = 'compliance_anomalies';
export const ASSESSMENTS = 'compliance_assessments';
export const DAILY = 'compliance_daily_snapshots';
export const ROWS = 'compliance_dashboard_rows';
export const COUNTS = 'compliance_bucket_counts';

/** A flagged anomaly counts in the `anomalies` bucket for this many days after it was observed. */
export const ANOMALY_OPEN_DAYS = 30;
