import { type Request, Router } from 'express';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { ChangeConnectorInput, changeConnector } from '../../../commands/connectors/change-connector';
import { deleteConnector } from '../../../commands/connectors/delete-connector';
import { disableConnector } from '../../../commands/connectors/disable-connector';
import { discoverConnectorSchema } from '../../../commands/connectors/discover-schema';
import { DraftExposureInput, draftExposure } from '../../../commands/connectors/draft-exposure';
import { EditExposureInput, editExposure } from '../../../commands/connectors/edit-exposure';
import { enableConnector } from '../../../commands/connectors/enable-connector';
import { probeConnector, probeConnectorById } from '../../../commands/connectors/probe-connector';
import { RegisterConnectorInput, registerConnector } from '../../../commands/connectors/register-connector';
import { RejectExposureInput, reviewExposure } from '../../../commands/connectors/review-exposure';
import { SetCredentialInput, setCredential } from '../../../commands/connectors/set-credential';
import { getConnector, getConnectorSchema, listConnectors } from '../../../queries/connectors/connectors';
import { approvedExposures, getExposure, listExposures } from '../../../queries/connectors/exposures';
import { type ENGINES, toolName } from '../../../streams/connectors/connector';
import type { PlatformDeps } from '../../platform/context-module';
import { type ConnectorsDeps, connectorsDeps } from '../../../commands/connectors/connectors-deps';
import { engineListing } from '../../../commands/connectors/engines';
import { parameterSchema } from '../../../commands/connectors/exposure-content';
import { runExposure } from './exposure-runner';
import { validateSql } from '../../../streams/connectors/sql-validator';
import { Unauthenticated } from '../../platform/domain-errors';
import { declareRoutes } from '../../platform/http/route';
import { requirePermission } from '../identity';
import { ExposureParams, KeyParams, RunInput, StatusQuery, ValidateInput } from './schemas';

/** Connectors and guarded queries. */

const MANAGE = 'connectors.manage';
const PROPOSE = 'exposures.propose';
const APPROVE = 'exposures.approve';

/** Built once per platform; `deps` for tests that swap engines or the resolver. */
export function createConnectorsApi(platform: PlatformDeps, deps: ConnectorsDeps = connectorsDeps(platform)): Router {
  const { knex } = deps;
  const router = Router();

  const route = declareRoutes(router, platform, requirePermission);
  type Scoped = { context: { tenantId: string }; params: { key: string } };
  const connector = (_: unknown, { context, params }: Scoped) => getConnector(knex, context.tenantId, params.key);
  const exposure = (
    _: unknown,
    { context, params }: { context: { tenantId: string }; params: { key: string; ekey: string } },
  ) => getExposure(knex, context.tenantId, params.key, params.ekey);

  route.get('/connectors', { permission: PROPOSE, read: ({ identity }) => listConnectors(knex, identity.tenantId) });

  route.post('/connectors', {
    permission: MANAGE,
    body: RegisterConnectorInput,
    status: 201,
    command: ({ body, context }) => registerConnector(deps, body, context),
    respond: (_, { context, body }) => getConnector(knex, context.tenantId, body.connector_key),
  });

  route.get('/connectors/engines', { permission: PROPOSE, read: () => engineListing() });

  route.search('/connectors/validate', {
    permission: PROPOSE,
    body: ValidateInput,
    read: async ({ identity, body }) => {
      const engine =
        body.engine ??
        (body.connector_key
          ? ((await getConnector(knex, identity.tenantId, body.connector_key))
              .connector_type as (typeof ENGINES)[number])
          : 'postgresql');
      return validateSql(body.sql, engine);
    },
  });

  route.get('/connectors/:key', {
    permission: PROPOSE,
    params: KeyParams,
    read: ({ context, params }) => getConnector(knex, context.tenantId, params.key),
  });

  // A connector whose config or credential changed is probed again in the same request (status `probing`).
  route.patch('/connectors/:key', {
    permission: MANAGE,
    params: KeyParams,
    body: ChangeConnectorInput,
    command: async ({ params, body, context }) => {
      const { id, reprobe } = await changeConnector(deps, params.key, body, context);
      if (reprobe) await probeConnectorById(deps, id, context);
    },
    respond: connector,
  });

  route.delete('/connectors/:key', {
    permission: MANAGE,
    params: KeyParams,
    status: 204,
    command: ({ params, context }) => deleteConnector(deps, params.key, context),
  });

  route.post('/connectors/:key/disable', {
    permission: MANAGE,
    params: KeyParams,
    command: ({ params, context }) => disableConnector(deps, params.key, context),
    respond: connector,
  });

  route.post('/connectors/:key/enable', {
    permission: MANAGE,
    params: KeyParams,
    command: async ({ params, context }) =>
      probeConnectorById(deps, await enableConnector(deps, params.key, context), context),
    respond: connector,
  });

  route.put('/connectors/:key/credential', {
    permission: MANAGE,
    params: KeyParams,
    body: SetCredentialInput,
    command: async ({ params, body, context }) => {
      const { id, probe } = await setCredential(deps, params.key, body, context);
      if (probe) await probeConnectorById(deps, id, context);
    },
    respond: connector,
  });

  route.post('/connectors/:key/probe', {
    permission: MANAGE,
    params: KeyParams,
    command: ({ params, context }) => probeConnector(deps, params.key, context),
    respond: async (probe, input) => ({ ...(await connector(null, input)), probe }),
  });

  route.post('/connectors/:key/discover', {
    permission: MANAGE,
    params: KeyParams,
    command: ({ params, context }) => discoverConnectorSchema(deps, params.key, context),
    respond: (_, { context, params }) => getConnectorSchema(knex, context.tenantId, params.key),
  });

  route.get('/connectors/:key/schema', {
    permission: PROPOSE,
    params: KeyParams,
    read: ({ context, params }) => getConnectorSchema(knex, context.tenantId, params.key),
  });

  route.get('/connectors/:key/exposures', {
    permission: PROPOSE,
    params: KeyParams,
    query: StatusQuery,
    read: ({ context, params, query }) => listExposures(knex, context.tenantId, params.key, query.status),
  });

  route.post('/connectors/:key/exposures', {
    permission: PROPOSE,
    params: KeyParams,
    body: DraftExposureInput,
    status: 201,
    command: ({ params, body, context }) => draftExposure(deps, params.key, body, context),
    respond: (_, { context, params, body }) => getExposure(knex, context.tenantId, params.key, body.ekey),
  });

  route.get('/connectors/:key/exposures/:ekey', {
    permission: PROPOSE,
    params: ExposureParams,
    read: (input) => exposure(null, input),
  });

  route.patch('/connectors/:key/exposures/:ekey', {
    permission: PROPOSE,
    params: ExposureParams,
    body: EditExposureInput,
    command: ({ params, body, context }) => editExposure(deps, params.key, params.ekey, body, context),
    respond: exposure,
  });

  route.delete('/connectors/:key/exposures/:ekey', {
    permission: PROPOSE,
    params: ExposureParams,
    status: 204,
    command: ({ params, context }) =>
      reviewExposure(deps, params.key, { type: 'DeleteExposure', ekey: params.ekey, by: context.actorId }, context),
  });

  const REVIEWS = {
    submit: ['SubmitExposure', PROPOSE],
    approve: ['ApproveExposure', APPROVE],
    retire: ['RetireExposure', APPROVE],
  } as const;
  for (const [verb, [type, permission]] of Object.entries(REVIEWS)) {
    route.post(`/connectors/:key/exposures/:ekey/${verb}`, {
      permission,
      params: ExposureParams,
      command: ({ params, context }) =>
        reviewExposure(deps, params.key, { type, ekey: params.ekey, by: context.actorId }, context),
      respond: exposure,
    });
  }
  route.post('/connectors/:key/exposures/:ekey/reject', {
    permission: APPROVE,
    params: ExposureParams,
    body: RejectExposureInput,
    command: ({ params, body, context }) =>
      reviewExposure(
        deps,
        params.key,
        { type: 'RejectExposure', ekey: params.ekey, by: context.actorId, reason: body.reason },
        context,
      ),
    respond: exposure,
  });

  route.search('/connectors/:key/exposures/:ekey/preview', {
    permission: PROPOSE,
    params: ExposureParams,
    body: RunInput,
    read: ({ params, body, context }) => runExposure(deps, params.key, params.ekey, body.params, 'preview', context),
  });

  return router;
}

/** Internal callers name the tenant in X-Tenant-Id and nothing else. */
function internalTenant(req: Request): { tenantId: string; actorId: string } {
  const tenantId = req.get('x-tenant-id');
  if (!tenantId) throw new Unauthenticated('X-Tenant-Id is required');
  return { tenantId, actorId: req.get('x-user-id') || 'service:connectors-internal' };
}

/**
 * The service-internal routes: status check, bindings for tool building, execute for agents.
 * The caller is a service naming a tenant, not a stamped identity.
 */
export function createConnectorsInternalApi(
  platform: PlatformDeps,
  deps: ConnectorsDeps = connectorsDeps(platform),
): Router {
  const router = Router();
  const route = declareRoutes(router, platform, requirePermission, {
    caller: (req) => ({ ...internalTenant(req), correlationId: req.id as string }),
  });

  route.get('/connectors/status', {
    read: ({ caller }) => listConnectors(deps.knex, caller.tenantId),
    respond: (connectors) => ({
      status: 'ok',
      connectors: connectors.map((c) => ({
        connector_key: c.connector_key,
        connector_type: c.connector_type,
        status: c.status,
        read_only_verified_at: c.read_only_verified_at,
      })),
    }),
  });

  route.get('/connectors/:key/status', {
    params: KeyParams,
    read: ({ caller, params }) => getConnector(deps.knex, caller.tenantId, params.key),
    respond: (c) => ({
      connector_key: c.connector_key,
      status: c.status,
      has_credential: c.has_credential,
      read_only_verified_at: c.read_only_verified_at,
      last_probe: c.last_probe,
    }),
  });

  route.get('/connectors/bindings', {
    read: ({ caller }) => approvedExposures(deps.knex, caller.tenantId),
    respond: (rows) => ({
      tools: rows.map((row) => ({
        name: toolName(row.connector_key, row.ekey),
        connector_key: row.connector_key,
        ekey: row.ekey,
        description: [row.display_name, row.description].filter(Boolean).join(': '),
        parameters: zodToJsonSchema(parameterSchema(row.parameters), { target: 'jsonSchema7', $refStrategy: 'none' }),
        approved_sql_hash: row.approved_sql_hash,
        max_rows: row.max_rows,
      })),
    }),
  });

  route.search('/connectors/:key/exposures/:ekey/execute', {
    params: ExposureParams,
    body: RunInput,
    read: ({ caller, params, body }) => runExposure(deps, params.key, params.ekey, body.params, 'execute', caller),
  });

  return router;
}
