import { Request, Router } from 'express';
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
import { RejectExposureInput, reviewExposure, ReviewExposure } from '../../../commands/connectors/review-exposure';
import { SetCredentialInput, setCredential } from '../../../commands/connectors/set-credential';
import { getConnector, getConnectorSchema, listConnectors } from '../../../queries/connectors/connectors';
import { approvedExposures, getExposure, listExposures } from '../../../queries/connectors/exposures';
import { ENGINES, toolName } from '../../../streams/connectors/connector';
import type { PlatformDeps } from '../../platform/context-module';
import { ConnectorsDeps, connectorsDeps } from '../../../commands/connectors/connectors-deps';
import { engineListing } from '../../../commands/connectors/engines';
import { parameterSchema } from '../../../commands/connectors/exposure-content';
import { runExposure } from './exposure-runner';
import { validateSql } from '../../../streams/connectors/sql-validator';
import { Unauthenticated } from '../../platform/domain-errors';
import { commandContext } from '../../platform/http/command-context';
import { requireIdentity } from '../../platform/http/identity';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
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

  const connectorAfter = async (req: Request, key: string) => getConnector(knex, requireIdentity(req).tenantId, key);

  router.get('/connectors', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    res.json(await listConnectors(knex, requireIdentity(req).tenantId));
  });

  router.post('/connectors', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const body = parseBody(req, RegisterConnectorInput);
    await registerConnector(deps, body, commandContext(req));
    res.status(201).json(await connectorAfter(req, body.connector_key));
  });

  router.get('/connectors/engines', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    res.json(engineListing());
  });

  router.post('/connectors/validate', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    const body = parseBody(req, ValidateInput);
    const engine = body.engine ?? (body.connector_key ? ((await getConnector(knex, requireIdentity(req).tenantId, body.connector_key)).connector_type as (typeof ENGINES)[number]) : 'postgresql');
    res.json(await validateSql(body.sql, engine));
  });

  router.get('/connectors/:key', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    res.json(await connectorAfter(req, parseParams(req, KeyParams).key));
  });

  router.patch('/connectors/:key', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { key } = parseParams(req, KeyParams);
    const context = commandContext(req);
    const { id, reprobe } = await changeConnector(deps, key, parseBody(req, ChangeConnectorInput), context);
    if (reprobe) await probeConnectorById(deps, id, context);
    res.json(await connectorAfter(req, key));
  });

  router.delete('/connectors/:key', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    await deleteConnector(deps, parseParams(req, KeyParams).key, commandContext(req));
    res.status(204).end();
  });

  router.post('/connectors/:key/disable', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { key } = parseParams(req, KeyParams);
    await disableConnector(deps, key, commandContext(req));
    res.json(await connectorAfter(req, key));
  });

  router.post('/connectors/:key/enable', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { key } = parseParams(req, KeyParams);
    const context = commandContext(req);
    const id = await enableConnector(deps, key, context);
    await probeConnectorById(deps, id, context);
    res.json(await connectorAfter(req, key));
  });

  router.put('/connectors/:key/credential', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { key } = parseParams(req, KeyParams);
    const context = commandContext(req);
    const { id, probe } = await setCredential(deps, key, parseBody(req, SetCredentialInput), context);
    if (probe) await probeConnectorById(deps, id, context);
    res.json(await connectorAfter(req, key));
  });

  router.post('/connectors/:key/probe', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { key } = parseParams(req, KeyParams);
    const probe = await probeConnector(deps, key, commandContext(req));
    res.json({ ...(await connectorAfter(req, key)), probe });
  });

  router.post('/connectors/:key/discover', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { key } = parseParams(req, KeyParams);
    await discoverConnectorSchema(deps, key, commandContext(req));
    res.json(await getConnectorSchema(knex, requireIdentity(req).tenantId, key));
  });

  router.get('/connectors/:key/schema', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    res.json(await getConnectorSchema(knex, requireIdentity(req).tenantId, parseParams(req, KeyParams).key));
  });

  router.get('/connectors/:key/exposures', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    const { key } = parseParams(req, KeyParams);
    res.json(await listExposures(knex, requireIdentity(req).tenantId, key, parseQuery(req, StatusQuery).status));
  });

  router.post('/connectors/:key/exposures', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    const { key } = parseParams(req, KeyParams);
    const body = parseBody(req, DraftExposureInput);
    await draftExposure(deps, key, body, commandContext(req));
    res.status(201).json(await getExposure(knex, requireIdentity(req).tenantId, key, body.ekey));
  });

  router.get('/connectors/:key/exposures/:ekey', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    const { key, ekey } = parseParams(req, ExposureParams);
    res.json(await getExposure(knex, requireIdentity(req).tenantId, key, ekey));
  });

  router.patch('/connectors/:key/exposures/:ekey', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    const { key, ekey } = parseParams(req, ExposureParams);
    await editExposure(deps, key, ekey, parseBody(req, EditExposureInput), commandContext(req));
    res.json(await getExposure(knex, requireIdentity(req).tenantId, key, ekey));
  });

  router.delete('/connectors/:key/exposures/:ekey', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    const { key, ekey } = parseParams(req, ExposureParams);
    await reviewExposure(deps, key, { type: 'DeleteExposure', ekey, by: requireIdentity(req).userId }, commandContext(req));
    res.status(204).end();
  });

  const transition = (verb: 'submit' | 'approve' | 'reject' | 'retire', permission: string) =>
    router.post(`/connectors/:key/exposures/:ekey/${verb}`, async (req, res) => {
      requirePermission(req, permission, deps);
      const { key, ekey } = parseParams(req, ExposureParams);
      const by = requireIdentity(req).userId;
      const command: ReviewExposure =
        verb === 'submit'
          ? { type: 'SubmitExposure', ekey, by }
          : verb === 'approve'
            ? { type: 'ApproveExposure', ekey, by }
            : verb === 'retire'
              ? { type: 'RetireExposure', ekey, by }
              : { type: 'RejectExposure', ekey, by, reason: parseBody(req, RejectExposureInput).reason };
      await reviewExposure(deps, key, command, commandContext(req));
      res.json(await getExposure(knex, requireIdentity(req).tenantId, key, ekey));
    });
  transition('submit', PROPOSE);
  transition('approve', APPROVE);
  transition('reject', APPROVE);
  transition('retire', APPROVE);

  router.post('/connectors/:key/exposures/:ekey/preview', async (req, res) => {
    requirePermission(req, PROPOSE, deps);
    const { key, ekey } = parseParams(req, ExposureParams);
    const { tenantId, userId } = requireIdentity(req);
    res.json(await runExposure(deps, key, ekey, parseBody(req, RunInput).params, 'preview', { tenantId, actorId: userId, correlationId: req.id as string }));
  });

  return router;
}

/** Internal callers name the tenant in X-Tenant-Id and nothing else. */
function internalTenant(req: Request): { tenantId: string; actorId: string } {
  const tenantId = req.get('x-tenant-id');
  if (!tenantId) throw new Unauthenticated('X-Tenant-Id is required');
  return { tenantId, actorId: req.get('x-user-id') || 'service:connectors-internal' };
}

/** The service-internal routes: status check, bindings for tool building, execute for agents. */
export function createConnectorsInternalApi(platform: PlatformDeps, deps: ConnectorsDeps = connectorsDeps(platform)): Router {
  const router = Router();

  router.get('/connectors/status', async (req, res) => {
    const { tenantId } = internalTenant(req);
    const connectors = await listConnectors(deps.knex, tenantId);
    res.json({ status: 'ok', connectors: connectors.map((c) => ({ connector_key: c.connector_key, connector_type: c.connector_type, status: c.status, read_only_verified_at: c.read_only_verified_at })) });
  });

  router.get('/connectors/:key/status', async (req, res) => {
    const { tenantId } = internalTenant(req);
    const c = await getConnector(deps.knex, tenantId, parseParams(req, KeyParams).key);
    res.json({ connector_key: c.connector_key, status: c.status, has_credential: c.has_credential, read_only_verified_at: c.read_only_verified_at, last_probe: c.last_probe });
  });

  router.get('/connectors/bindings', async (req, res) => {
    const { tenantId } = internalTenant(req);
    const rows = await approvedExposures(deps.knex, tenantId);
    res.json({
      tools: rows.map((row) => ({
        name: toolName(row.connector_key, row.ekey),
        connector_key: row.connector_key,
        ekey: row.ekey,
        description: [row.display_name, row.description].filter(Boolean).join(': '),
        parameters: zodToJsonSchema(parameterSchema(row.parameters), { target: 'jsonSchema7', $refStrategy: 'none' }),
        approved_sql_hash: row.approved_sql_hash,
        max_rows: row.max_rows,
      })),
    });
  });

  router.post('/connectors/:key/exposures/:ekey/execute', async (req, res) => {
    const { tenantId, actorId } = internalTenant(req);
    const { key, ekey } = parseParams(req, ExposureParams);
    res.json(await runExposure(deps, key, ekey, parseBody(req, RunInput).params, 'execute', { tenantId, actorId, correlationId: req.id as string }));
  });

  return router;
}
