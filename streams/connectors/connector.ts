import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * A connector and its exposures (guarded queries), one stream per connector: the delete
 * rule "no connector with approved exposures" and the ekey uniqueness are then decided on
 * one state. Event data never holds a credential: `CredentialSet` names the secret only.
 * The SQL text is in the exposure events (the read model shows it); the decision state
 * keeps only each exposure's status, content hash and authors.
 */

export const ENGINES = ['postgresql', 'snowflake'] as const;
export type EngineKey = (typeof ENGINES)[number];

const ProbeResult = z.object({
  ok: z.boolean(),
  at: z.string(),
  /** Readable reasons a credential was refused (never the credential itself). */
  reasons: z.array(z.string()),
  server_version: z.string().nullable().optional(),
  elapsed_ms: z.number().optional(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;

const Parameter = z.object({
  name: z.string(),
  type: z.enum(['string', 'integer', 'number', 'boolean', 'date', 'timestamp']),
  description: z.string().default(''),
  required: z.boolean().default(true),
});
export type ExposureParameter = z.infer<typeof Parameter>;

const ExposureContent = {
  ekey: z.string(),
  displayName: z.string(),
  description: z.string(),
  sql: z.string(),
  sqlHash: z.string(),
  parameters: z.array(Parameter),
  maxRows: z.number().int().nullable(),
};

export const ConnectorEventSchemas = {
  ConnectorRegistered: z.object({
    connectorId: z.string(),
    connectorKey: z.string(),
    displayName: z.string(),
    description: z.string(),
    connectorType: z.enum(ENGINES),
    config: z.record(z.unknown()),
    dataClassification: z.string(),
    at: z.string(),
  }),
  ConnectorDetailsChanged: z.object({
    displayName: z.string().optional(),
    description: z.string().optional(),
    dataClassification: z.string().optional(),
    at: z.string(),
  }),
  ConnectorConfigChanged: z.object({ config: z.record(z.unknown()), at: z.string() }),
  CredentialSet: z.object({
    secretName: z.string(),
    credentialRevision: z.number().int(),
    at: z.string(),
    /** The secret this credential replaces; `connectors.secret-cleanup` deletes it once this event is committed. */
    supersedes: z.string().nullable().optional(),
  }),
  /** A superseded credential's secret was deleted from the secret store (by `connectors.secret-cleanup`). */
  CredentialSecretDeleted: z.object({ secretName: z.string(), at: z.string() }),
  ProbeSucceeded: z.object({ credentialRevision: z.number().int(), result: ProbeResult }),
  ProbeFailed: z.object({ credentialRevision: z.number().int(), result: ProbeResult }),
  SchemaDiscovered: z.object({
    at: z.string(),
    tables: z.array(
      z.object({
        schema: z.string(),
        name: z.string(),
        columns: z.array(z.object({ name: z.string(), type: z.string(), nullable: z.boolean() })),
      }),
    ),
    truncated: z.boolean(),
  }),
  ConnectorDisabled: z.object({ at: z.string() }),
  ConnectorEnabled: z.object({ at: z.string() }),
  ConnectorDeleted: z.object({ connectorKey: z.string(), at: z.string() }),
  ExposureDrafted: z.object({ ...ExposureContent, authorId: z.string(), at: z.string() }),
  ExposureEdited: z.object({ ...ExposureContent, editorId: z.string(), at: z.string() }),
  ExposureSubmitted: z.object({ ekey: z.string(), by: z.string(), at: z.string() }),
  ExposureApproved: z.object({ ekey: z.string(), approvedSqlHash: z.string(), by: z.string(), at: z.string() }),
  ExposureRejected: z.object({ ekey: z.string(), reason: z.string(), by: z.string(), at: z.string() }),
  ExposureRetired: z.object({ ekey: z.string(), by: z.string(), at: z.string() }),
  ExposureDeleted: z.object({ ekey: z.string(), by: z.string(), at: z.string() }),
};

export type ConnectorEvent = EventsOf<typeof ConnectorEventSchemas>;
export const readConnectorEvent = eventReader('connector', ConnectorEventSchemas);

export type ExposureStatus = 'draft' | 'pending_review' | 'approved' | 'rejected' | 'retired';

export interface ExposureState {
  status: ExposureStatus;
  sqlHash: string;
  /** Everyone who wrote the current content since it was last drafted: none of them may approve it. */
  authors: string[];
  approvedSqlHash: string | null;
}

export type ConnectorStatus = 'unconfigured' | 'probing' | 'active' | 'probe_failed' | 'disabled';

interface Registered {
  connectorId: string;
  connectorKey: string;
  connectorType: EngineKey;
  config: Record<string, unknown>;
  secretName: string | null;
  credentialRevision: number;
  readOnlyVerifiedAt: string | null;
  exposures: Record<string, ExposureState>;
}

export type ConnectorState =
  { status: 'none' } | ({ status: ConnectorStatus } & Registered) | { status: 'deleted'; connectorKey: string };

export type LiveConnector = Extract<ConnectorState, { connectorId: string }>;

function evolveExposure(
  state: LiveConnector,
  ekey: string,
  change: (e: ExposureState | undefined) => ExposureState | null,
): LiveConnector {
  const exposures = { ...state.exposures };
  const next = change(exposures[ekey]);
  if (next) exposures[ekey] = next;
  else delete exposures[ekey];
  return { ...state, exposures };
}

export function evolveConnector(state: ConnectorState, event: ConnectorEvent): ConnectorState {
  if (event.type === 'ConnectorRegistered') {
    const { connectorId, connectorKey, connectorType, config } = event.data;
    return {
      status: 'unconfigured',
      connectorId,
      connectorKey,
      connectorType,
      config,
      secretName: null,
      credentialRevision: 0,
      readOnlyVerifiedAt: null,
      exposures: {},
    };
  }
  if (!('connectorId' in state)) return state;
  switch (event.type) {
    case 'ConnectorDetailsChanged':
      return state;
    case 'ConnectorConfigChanged':
      return {
        ...state,
        config: event.data.config,
        readOnlyVerifiedAt: null,
        status: state.status === 'disabled' ? 'disabled' : state.secretName ? 'probing' : 'unconfigured',
      };
    case 'CredentialSet':
      return {
        ...state,
        secretName: event.data.secretName,
        credentialRevision: event.data.credentialRevision,
        readOnlyVerifiedAt: null,
        status: state.status === 'disabled' ? 'disabled' : 'probing',
      };
    case 'ProbeSucceeded':
      return { ...state, status: 'active', readOnlyVerifiedAt: event.data.result.at };
    case 'ProbeFailed':
      return { ...state, status: 'probe_failed', readOnlyVerifiedAt: null };
    case 'SchemaDiscovered':
    case 'CredentialSecretDeleted':
      return state;
    case 'ConnectorDisabled':
      return { ...state, status: 'disabled' };
    case 'ConnectorEnabled':
      return { ...state, status: 'probing', readOnlyVerifiedAt: null };
    case 'ConnectorDeleted':
      return { status: 'deleted', connectorKey: state.connectorKey };
    case 'ExposureDrafted':
      return evolveExposure(state, event.data.ekey, () => ({
        status: 'draft',
        sqlHash: event.data.sqlHash,
        authors: [event.data.authorId],
        approvedSqlHash: null,
      }));
    case 'ExposureEdited':
      return evolveExposure(state, event.data.ekey, (e) => ({
        status: 'draft',
        sqlHash: event.data.sqlHash,
        authors: [...new Set([...(e?.authors ?? []), event.data.editorId])],
        approvedSqlHash: null,
      }));
    case 'ExposureSubmitted':
      return evolveExposure(state, event.data.ekey, (e) => (e ? { ...e, status: 'pending_review' } : null));
    case 'ExposureApproved':
      return evolveExposure(state, event.data.ekey, (e) =>
        e ? { ...e, status: 'approved', approvedSqlHash: event.data.approvedSqlHash } : null,
      );
    case 'ExposureRejected':
      return evolveExposure(state, event.data.ekey, (e) => (e ? { ...e, status: 'rejected' } : null));
    case 'ExposureRetired':
      return evolveExposure(state, event.data.ekey, (e) =>
        e ? { ...e, status: 'retired', approvedSqlHash: null } : null,
      );
    case 'ExposureDeleted':
      return evolveExposure(state, event.data.ekey, () => null);
  }
}

export const connectorAggregate: Aggregate<ConnectorState, ConnectorEvent> = {
  stream: (tenantId, id) => `connectors.connector-${tenantId}-${id}`,
  eventTypes: Object.keys(ConnectorEventSchemas) as ConnectorEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveConnector,
  read: readConnectorEvent,
  // Exposure edits and probes make this stream grow; the state itself stays small.
  snapshot: { every: 50, version: 1, toJSON: (s) => s, fromJSON: (j) => j as ConnectorState },
};

/**
 * The secret's name: tenant, connector id (keys are reusable after delete) and the id of the
 * credential the `CredentialSet` event records, derived from the request's Idempotency-Key
 * when it has one: a retried PUT names the same secret, a new PUT always a fresh one.
 */
export const credentialSecretName = (
  tenantId: string,
  connectorId: string,
  connectorKey: string,
  credentialId: string,
) => `connectors/${tenantId}/${connectorKey}/${connectorId}/${credentialId}`;

/** `<connector_key>__<ekey>`: the agent tool an approved exposure becomes. */
export const toolName = (connectorKey: string, ekey: string) => `${connectorKey}__${ekey}`;
