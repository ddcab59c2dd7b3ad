import { createHash } from 'node:crypto';
import { z } from 'zod';
import { boundedRecord } from '../../src/platform/http/bounded';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import { ValidationFailed } from '../../src/platform/domain-errors';
import { normaliseApiNumber } from './csv-wells';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import {
  COMPLIANCE_ANOMALY_FLAGGED,
  type ComplianceAnomalyFlaggedData,
} from '../../src/platform/published/anomaly-flagged';
import { namespaceOf } from '../../streams/graph/names';
import type { Properties } from '../../streams/graph/properties';
import {
  scadaBatchAggregate,
  type ScadaBatchEvent,
  type ScadaBatchState,
  type ScadaReading,
} from '../../streams/ingestion/scada-batch';
import { feedGraph, type FeedDeps } from './feed-graph';

const METRIC_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** Volumes and rates cannot be negative; pressures and temperatures may. */
const VOLUME_METRIC = /(_mcf|_mcfd|_bbl|_bbls|_bopd|_bwpd)$/;
/** Daily flared gas (mcf/d), compared with an R-32 authorization's `authorized_mcf`. */
export const FLARED_METRICS = ['flared_mcf', 'gas_flared_mcf', 'flare_mcf', 'flared_mcfd', 'flare_volume_mcf'];

export const ScadaBody = z
  .object({
    readings: z
      .array(
        z
          .object({
            well_api: z.string().min(1).max(40),
            timestamp: z.string().max(40).datetime({ offset: true }),
            metrics: boundedRecord(z.number().finite()).refine((m) => Object.keys(m).length > 0, 'at least one metric'),
          })
          .strict()
          .superRefine((reading, ctx) => {
            if (!normaliseApiNumber(reading.well_api))
              ctx.addIssue({
                code: 'custom',
                path: ['well_api'],
                message: `'${reading.well_api}' is not a Texas API number (42-CCC-UUUUU)`,
              });
            for (const [name, value] of Object.entries(reading.metrics)) {
              if (!METRIC_NAME.test(name))
                ctx.addIssue({ code: 'custom', path: ['metrics', name], message: 'metric names are lower_snake_case' });
              else if (VOLUME_METRIC.test(name) && value < 0)
                ctx.addIssue({
                  code: 'custom',
                  path: ['metrics', name],
                  message: `${name} is a volume and cannot be negative`,
                });
            }
          }),
      )
      .min(1)
      .max(5000),
  })
  .strict();
export type ScadaRequest = z.infer<typeof ScadaBody>;

export interface FlaringAuthorizationView {
  authNumber: string;
  authorizedMcf: number;
  issuedDate?: string;
  expiryDate: string;
}

export interface KnownWell {
  apiNumber: string;
  name: string;
  lastReadingAt?: string;
  authorizations: FlaringAuthorizationView[];
}

export interface RecordScadaReadings {
  type: 'RecordScadaReadings';
  batchId: string;
  readings: ScadaReading[];
  /** Read before deciding: the wells of the readings the graph knows, with their R-32 authorizations. */
  wells: Record<string, KnownWell>;
}

const flaredOf = (metrics: Record<string, number>) =>
  FLARED_METRICS.map((m) => metrics[m]).find((v) => v !== undefined);

/**
 * Rule 32: flaring above the authorized volume, after the authorization expired, or with none
 * on record; and any reading from a well the graph does not hold. Each anomaly is handed to
 * the compliance dashboard as ComplianceAnomalyFlagged.
 */
export function anomaliesOf(
  readings: ScadaReading[],
  wells: Record<string, KnownWell>,
): ComplianceAnomalyFlaggedData[] {
  const out: ComplianceAnomalyFlaggedData[] = [];
  const unknownReported = new Set<string>();
  for (const reading of readings) {
    const well = wells[reading.wellApi];
    if (!well) {
      if (unknownReported.has(reading.wellApi)) continue;
      unknownReported.add(reading.wellApi);
      out.push({
        entityId: reading.wellApi,
        entityLabel: 'Well',
        domain: 'production',
        kind: 'unknown_well',
        detail: `SCADA reading for ${reading.wellApi}, a well the knowledge graph does not hold`,
        observedAt: reading.timestamp,
        source: 'scada',
      });
      continue;
    }
    const flared = flaredOf(reading.metrics);
    if (flared === undefined || flared <= 0) continue;
    const day = reading.timestamp.slice(0, 10);
    const inForce = well.authorizations.filter((a) => (!a.issuedDate || a.issuedDate <= day) && a.expiryDate >= day);
    if (inForce.length > 0) {
      const limit = Math.max(...inForce.map((a) => a.authorizedMcf));
      if (flared > limit) {
        const auth = inForce.find((a) => a.authorizedMcf === limit)!;
        out.push({
          entityId: well.apiNumber,
          entityLabel: 'Well',
          domain: 'rule_32',
          kind: 'flared_above_authorization',
          detail: `${well.name}: ${flared} mcf/d flared, above the ${limit} mcf/d authorized by ${auth.authNumber} (expires ${auth.expiryDate})`,
          observedAt: reading.timestamp,
          source: 'scada',
        });
      }
      continue;
    }
    const expired = well.authorizations
      .filter((a) => a.expiryDate < day)
      .sort((a, b) => b.expiryDate.localeCompare(a.expiryDate))[0];
    out.push(
      expired
        ? {
            entityId: well.apiNumber,
            entityLabel: 'Well',
            domain: 'rule_32',
            kind: 'flared_after_authorization_expiry',
            detail: `${well.name}: ${flared} mcf/d flared after ${expired.authNumber} expired on ${expired.expiryDate}`,
            observedAt: reading.timestamp,
            source: 'scada',
          }
        : {
            entityId: well.apiNumber,
            entityLabel: 'Well',
            domain: 'rule_32',
            kind: 'flared_without_authorization',
            detail: `${well.name}: ${flared} mcf/d flared with no R-32 flaring authorization on record`,
            observedAt: reading.timestamp,
            source: 'scada',
          },
    );
  }
  return out;
}

export function decideRecordScadaReadings(command: RecordScadaReadings, state: ScadaBatchState): ScadaBatchEvent[] {
  switch (command.type) {
    case 'RecordScadaReadings': {
      if (state.status !== 'none') return [];
      const anomalies = anomaliesOf(command.readings, command.wells);
      return [
        { type: 'ScadaReadingsRecorded', data: { batchId: command.batchId, readings: command.readings } },
        ...anomalies.map((data): ScadaBatchEvent => ({ type: COMPLIANCE_ANOMALY_FLAGGED, data })),
      ];
    }
    default:
      return assertNever(command.type);
  }
}

export const recordScadaReadingsDecider: Decider<RecordScadaReadings, ScadaBatchState, ScadaBatchEvent> = {
  ...scadaBatchAggregate,
  decide: decideRecordScadaReadings,
};

async function knownWells(
  deps: FeedDeps,
  namespace: string,
  apis: string[],
): Promise<Record<string, KnownWell & { properties: Properties }>> {
  const rows: Array<{ entity_id: string; properties: Properties }> = await deps
    .knex(VERTICES)
    .select('entity_id', 'properties')
    .where({ namespace, label: 'Well' })
    .whereIn('entity_id', apis);
  const wells: Record<string, KnownWell & { properties: Properties }> = {};
  for (const row of rows)
    wells[row.entity_id] = {
      apiNumber: row.entity_id,
      name: row.properties.name ?? row.properties.well_name ?? row.entity_id,
      lastReadingAt: row.properties.scada_last_reading_at,
      authorizations: [],
      properties: row.properties,
    };
  if (rows.length === 0) return wells;
  // Authorizations that cover the well itself or the lease it lies on.
  const auths = await deps.knex.raw(
    `SELECT w.entity_id AS api, a.properties
       FROM ${VERTICES} w
       JOIN ${EDGES} e ON e.namespace = w.namespace AND e.label = 'FLARES_AT' AND e.to_id = w.id
       JOIN ${VERTICES} a ON a.id = e.from_id AND a.label = 'FlaringAuthorization'
      WHERE w.namespace = ? AND w.label = 'Well' AND w.entity_id = ANY(?)
     UNION ALL
     SELECT w.entity_id AS api, a.properties
       FROM ${VERTICES} w
       JOIN ${EDGES} l ON l.namespace = w.namespace AND l.label = 'LOCATED_IN' AND l.from_id = w.id AND l.to_label = 'Lease'
       JOIN ${EDGES} e ON e.namespace = w.namespace AND e.label = 'FLARES_AT' AND e.to_id = l.to_id
       JOIN ${VERTICES} a ON a.id = e.from_id AND a.label = 'FlaringAuthorization'
      WHERE w.namespace = ? AND w.label = 'Well' AND w.entity_id = ANY(?)`,
    [namespace, apis, namespace, apis],
  );
  for (const row of auths.rows as Array<{ api: string; properties: Properties }>) {
    const p = row.properties;
    const mcf = Number(p.authorized_mcf);
    if (!p.expiry_date || !Number.isFinite(mcf)) continue;
    wells[row.api].authorizations.push({
      authNumber: p.auth_number ?? p.entity_id,
      authorizedMcf: mcf,
      issuedDate: p.issued_date,
      expiryDate: p.expiry_date,
    });
  }
  return wells;
}

export interface ScadaResult {
  batch_id: string;
  readings: number;
  wells: number;
  unknown_wells: string[];
  wells_updated: number;
  anomalies: Array<{ well_api: string; domain: string; kind: string; detail: string; observed_at: string }>;
  recorded: boolean;
}

/**
 * The batch is recorded once (its id derives from the Idempotency-Key or the readings), then
 * each known well's newest reading becomes its latest SCADA values (`scada_<metric>`,
 * `scada_last_reading_at`) unless the well already shows a newer one.
 */
export async function recordScadaReadings(
  deps: FeedDeps,
  context: CommandContext,
  request: ScadaRequest,
): Promise<ScadaResult> {
  const readings: ScadaReading[] = request.readings.map((r) => ({
    wellApi: normaliseApiNumber(r.well_api)!,
    timestamp: new Date(r.timestamp).toISOString(),
    metrics: r.metrics,
  }));
  const digest = createHash('sha256').update(JSON.stringify(readings)).digest('hex');
  const batchId = context.idempotencyKey
    ? derivedUuid('ingestion.scada', context.tenantId, context.idempotencyKey)
    : derivedUuid('ingestion.scada', context.tenantId, digest);
  const namespace = namespaceOf(context.tenantId);
  const apis = [...new Set(readings.map((r) => r.wellApi))];
  const wells = await knownWells(deps, namespace, apis);
  const command: RecordScadaReadings = {
    type: 'RecordScadaReadings',
    batchId,
    readings,
    wells: Object.fromEntries(Object.entries(wells).map(([k, { properties: _p, ...w }]) => [k, w])),
  };
  const stream = scadaBatchAggregate.stream(context.tenantId, batchId);
  const { events, state } = await deps.handle(recordScadaReadingsDecider, stream, command, {
    ...context,
    idempotencyKey: `scada:${batchId}`,
  });
  if (state.status === 'none')
    throw new ValidationFailed([{ loc: ['body', 'readings'], msg: 'no readings recorded', type: 'value_error' }]);

  // Latest values: the newest reading per known well, if newer than what the well shows.
  const newest = new Map<string, ScadaReading>();
  for (const r of readings)
    if (wells[r.wellApi] && (!newest.has(r.wellApi) || newest.get(r.wellApi)!.timestamp < r.timestamp))
      newest.set(r.wellApi, r);
  const entities = [...newest.values()]
    .filter((r) => !wells[r.wellApi].lastReadingAt || wells[r.wellApi].lastReadingAt! < r.timestamp)
    .map((r) => ({
      label: 'Well',
      entityId: r.wellApi,
      properties: {
        scada_last_reading_at: r.timestamp,
        ...Object.fromEntries(Object.entries(r.metrics).map(([k, v]) => [`scada_${k}`, String(v)])),
      },
    }));
  const fed = await feedGraph(
    deps,
    { tenantId: context.tenantId, userId: context.actorId },
    { entities, relations: [] },
    { source: 'scada', description: `SCADA batch ${batchId}` },
  );

  const anomalies = (
    events.length > 0
      ? events.filter((e) => e.type === COMPLIANCE_ANOMALY_FLAGGED).map((e) => e.data as ComplianceAnomalyFlaggedData)
      : anomaliesOf(readings, command.wells)
  ).map((a) => ({ well_api: a.entityId, domain: a.domain, kind: a.kind, detail: a.detail, observed_at: a.observedAt }));
  return {
    batch_id: batchId,
    readings: readings.length,
    wells: apis.length,
    unknown_wells: apis.filter((a) => !wells[a]),
    wells_updated: fed.updated,
    anomalies,
    recorded: events.length > 0,
  };
}
