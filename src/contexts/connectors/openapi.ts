import { identityHeader } from '../../platform/http/bounded';
import { z, type ApiDescription } from '../../platform/openapi/describe';
import { ChangeConnectorInput } from '../../../commands/connectors/change-connector';
import { DraftExposureInput } from '../../../commands/connectors/draft-exposure';
import { EditExposureInput } from '../../../commands/connectors/edit-exposure';
import { RegisterConnectorInput } from '../../../commands/connectors/register-connector';
import { RejectExposureInput } from '../../../commands/connectors/review-exposure';
import { SetCredentialInput } from '../../../commands/connectors/set-credential';
import { ExposureParams, KeyParams, RunInput, StatusQuery, ValidateInput } from './schemas';

/** Connectors and guarded queries in the API contract; schemas are the router's own. */
const ts = z.string().nullable();
const Connector = z
  .object({
    connector_key: z.string(),
    display_name: z.string(),
    description: z.string().nullable(),
    connector_type: z.string(),
    config: z.record(z.unknown()),
    status: z.string(),
    has_credential: z.boolean(),
    read_only_verified_at: ts,
    last_probe: z.record(z.unknown()).nullable(),
    data_classification: z.string(),
    created_at: ts,
    updated_at: ts,
  })
  .openapi('Connector', {
    description: 'A connector; its credential never leaves the server (only `has_credential`).',
  });
const ConnectorSchema = z
  .object({ connector_key: z.string(), discovered_at: ts, truncated: z.boolean(), tables: z.array(z.unknown()) })
  .openapi('ConnectorSchema');
const Exposure = z
  .object({
    connector_key: z.string(),
    ekey: z.string(),
    tool_name: z.string(),
    display_name: z.string(),
    description: z.string().nullable(),
    sql: z.string(),
    sql_hash: z.string(),
    parameters: z.unknown(),
    max_rows: z.number().int().nullable(),
    status: z.string(),
    approved_sql_hash: ts,
    approved_sql: ts.describe(
      'the SQL as last approved (kept after later edits, for the review diff); null when never approved',
    ),
    author_id: ts,
    last_editor_id: ts,
    submitted_by: ts,
    approved_by: ts,
    approved_at: ts,
    rejection_reason: ts,
    created_at: ts,
    updated_at: ts,
  })
  .openapi('Exposure', { description: 'A reviewed, parameterised query that agents may run as a tool once approved.' });
const Run = z
  .object({
    connector_key: z.string(),
    ekey: z.string(),
    columns: z.array(z.object({ name: z.string(), type: z.string() })),
    rows: z.array(z.array(z.unknown())),
    row_count: z.number().int(),
    truncated: z.boolean(),
    elapsed_ms: z.number(),
  })
  .openapi('ExposureRun');
const SqlValidation = z
  .object({
    valid: z.boolean(),
    engine: z.string(),
    parameters: z.array(z.string()),
    errors: z.array(z.record(z.unknown())),
    bound_sql: z.string(),
  })
  .openapi('SqlValidation');
const Engine = z
  .object({
    key: z.string(),
    title: z.string(),
    capabilities: z.unknown(),
    config_schema: z.record(z.unknown()),
    credential_fields: z.array(z.string()),
  })
  .openapi('ConnectorEngine');
/** Connector refusals name a machine-readable reason: config_invalid, egress_denied, credential_invalid, sql_invalid… */
const Refusal = z.object({ detail: z.object({ error: z.string() }).passthrough() }).openapi('ConnectorRefusal', {
  description: 'A refusal with a machine-readable `detail.error` and its particulars (fields, host, reason…).',
});
const refusals = { errorBodies: { 422: Refusal } };
const TenantHeader = z.object({
  'x-tenant-id': identityHeader('x-tenant-id'),
  'x-user-id': identityHeader('x-user-id').optional(),
});

export const connectorsApi: ApiDescription = {
  tag: 'connectors',
  public: () => [
    {
      method: 'get',
      path: '/connectors',
      ...refusals,
      summary: "The tenant's connectors (exposures.propose)",
      responses: { 200: z.array(Connector) },
    },
    {
      method: 'post',
      path: '/connectors',
      ...refusals,
      summary: 'Register a connector (connectors.manage)',
      body: RegisterConnectorInput,
      responses: { 201: Connector },
    },
    {
      method: 'get',
      path: '/connectors/engines',
      ...refusals,
      summary: 'Supported engines with their config schema and credential fields',
      responses: { 200: z.array(Engine) },
    },
    {
      method: 'post',
      path: '/connectors/validate',
      ...refusals,
      summary: "Check SQL: read-only, named parameters, the engine's dialect",
      body: ValidateInput,
      responses: { 200: SqlValidation },
    },
    {
      method: 'get',
      path: '/connectors/:key',
      ...refusals,
      summary: 'One connector',
      params: KeyParams,
      responses: { 200: Connector },
    },
    {
      method: 'patch',
      path: '/connectors/:key',
      ...refusals,
      summary: 'Change a connector (re-probes when the target changed)',
      params: KeyParams,
      body: ChangeConnectorInput,
      responses: { 200: Connector },
    },
    {
      method: 'delete',
      path: '/connectors/:key',
      ...refusals,
      summary: 'Delete a connector',
      params: KeyParams,
      responses: { 204: null },
    },
    {
      method: 'post',
      path: '/connectors/:key/disable',
      ...refusals,
      summary: 'Disable a connector',
      params: KeyParams,
      responses: { 200: Connector },
    },
    {
      method: 'post',
      path: '/connectors/:key/enable',
      ...refusals,
      summary: 'Enable a connector (and probe it)',
      params: KeyParams,
      responses: { 200: Connector },
    },
    {
      method: 'put',
      path: '/connectors/:key/credential',
      ...refusals,
      summary: 'Set the credential (stored encrypted, never returned)',
      params: KeyParams,
      body: SetCredentialInput,
      responses: { 200: Connector },
    },
    {
      method: 'post',
      path: '/connectors/:key/probe',
      ...refusals,
      summary: 'Probe connectivity and read-only access',
      params: KeyParams,
      responses: { 200: Connector.extend({ probe: z.record(z.unknown()) }) },
    },
    {
      method: 'post',
      path: '/connectors/:key/discover',
      ...refusals,
      summary: "Discover the source's tables and columns",
      params: KeyParams,
      responses: { 200: ConnectorSchema },
    },
    {
      method: 'get',
      path: '/connectors/:key/schema',
      ...refusals,
      summary: 'The last discovered schema',
      params: KeyParams,
      responses: { 200: ConnectorSchema },
    },
    {
      method: 'get',
      path: '/connectors/:key/exposures',
      ...refusals,
      summary: "A connector's exposures",
      params: KeyParams,
      query: StatusQuery,
      responses: { 200: z.array(Exposure) },
    },
    {
      method: 'post',
      path: '/connectors/:key/exposures',
      ...refusals,
      summary: 'Draft an exposure (exposures.propose)',
      params: KeyParams,
      body: DraftExposureInput,
      responses: { 201: Exposure },
    },
    {
      method: 'get',
      path: '/connectors/:key/exposures/:ekey',
      ...refusals,
      summary: 'One exposure',
      params: ExposureParams,
      responses: { 200: Exposure },
    },
    {
      method: 'patch',
      path: '/connectors/:key/exposures/:ekey',
      ...refusals,
      summary: 'Edit a draft or rejected exposure',
      params: ExposureParams,
      body: EditExposureInput,
      responses: { 200: Exposure },
    },
    {
      method: 'delete',
      path: '/connectors/:key/exposures/:ekey',
      ...refusals,
      summary: 'Delete an exposure that was never approved',
      params: ExposureParams,
      responses: { 204: null },
    },
    {
      method: 'post',
      path: '/connectors/:key/exposures/:ekey/submit',
      ...refusals,
      summary: 'Submit for review (exposures.propose)',
      params: ExposureParams,
      responses: { 200: Exposure },
    },
    {
      method: 'post',
      path: '/connectors/:key/exposures/:ekey/approve',
      ...refusals,
      summary: 'Approve: agents may run it (exposures.approve, not the author)',
      params: ExposureParams,
      responses: { 200: Exposure },
    },
    {
      method: 'post',
      path: '/connectors/:key/exposures/:ekey/reject',
      ...refusals,
      summary: 'Reject with a reason (exposures.approve)',
      params: ExposureParams,
      body: RejectExposureInput,
      responses: { 200: Exposure },
    },
    {
      method: 'post',
      path: '/connectors/:key/exposures/:ekey/retire',
      ...refusals,
      summary: 'Retire an approved exposure (exposures.approve)',
      params: ExposureParams,
      responses: { 200: Exposure },
    },
    {
      method: 'post',
      path: '/connectors/:key/exposures/:ekey/preview',
      ...refusals,
      summary: 'Run an exposure with parameters (bounded rows)',
      params: ExposureParams,
      body: RunInput,
      responses: { 200: Run },
    },
  ],
  internal: () => [
    {
      method: 'get',
      path: '/connectors/status',
      ...refusals,
      summary: "Status of the tenant's connectors",
      headers: TenantHeader,
      responses: {
        200: z.object({
          status: z.literal('ok'),
          connectors: z.array(
            z.object({
              connector_key: z.string(),
              connector_type: z.string(),
              status: z.string(),
              read_only_verified_at: ts,
            }),
          ),
        }),
      },
    },
    {
      method: 'get',
      path: '/connectors/:key/status',
      ...refusals,
      summary: "One connector's status",
      params: KeyParams,
      headers: TenantHeader,
      responses: {
        200: z.object({
          connector_key: z.string(),
          status: z.string(),
          has_credential: z.boolean(),
          read_only_verified_at: ts,
          last_probe: z.record(z.unknown()).nullable(),
        }),
      },
    },
    {
      method: 'get',
      path: '/connectors/bindings',
      ...refusals,
      summary: 'Approved exposures as agent tool bindings',
      headers: TenantHeader,
      responses: {
        200: z.object({
          tools: z.array(
            z.object({
              name: z.string(),
              connector_key: z.string(),
              ekey: z.string(),
              description: z.string(),
              parameters: z.record(z.unknown()),
              approved_sql_hash: ts,
              max_rows: z.number().int().nullable(),
            }),
          ),
        }),
      },
    },
    {
      method: 'post',
      path: '/connectors/:key/exposures/:ekey/execute',
      ...refusals,
      summary: 'Run an approved exposure for an agent',
      params: ExposureParams,
      headers: TenantHeader,
      body: RunInput,
      responses: { 200: Run },
    },
  ],
};
