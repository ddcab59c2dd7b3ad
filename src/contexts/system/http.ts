import { Router, type Request } from 'express';
import { DEFAULT_TENANT_ID } from '../../../streams/identity/tenant';
import type { PlatformDeps } from '../../platform/context-module';
import { Forbidden, Unavailable } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';
import { declareRoutes } from '../../platform/http/route';
import type { RuntimeView } from '../../platform/runtime/report';
import { requirePermission } from '../identity';
import { DeadLetterParams, DeadLettersQuery, ScheduledParams } from './schemas';

/**
 * The System page's API (docs/operations.md#the-system-page-and-its-api): the processing
 * runtime's lanes, who leads, the scheduled messages and the dead letters, with their retry.
 * The admin role (the gateway's /admin gate) plus `system.operate`, and the operator tenant:
 * lanes and dead letters are the whole platform's, every tenant's events among them, so an
 * administrator of another tenant is refused like anyone without the permission.
 */
const PERMISSION = 'system.operate';

function operatorOnly(req: Request, deps: PlatformDeps): RuntimeView {
  requirePermission(req, PERMISSION, deps);
  if (requireIdentity(req).tenantId !== DEFAULT_TENANT_ID) throw new Forbidden('Insufficient permissions');
  if (!deps.runtime) throw new Unavailable('The processing runtime is not running in this process');
  return deps.runtime;
}

export function createSystemApi(deps: PlatformDeps): Router {
  const router = Router();
  const route = declareRoutes(router, deps, requirePermission);
  // The tenant check runs before anything is read: declared routes call it first.
  const gate = (req: Request) => operatorOnly(req, deps);
  router.use('/admin/system', (req, _res, next) => {
    gate(req);
    next();
  });

  route.get('/admin/system', {
    permission: PERMISSION,
    read: () => deps.runtime!.system(),
  });

  route.get('/admin/system/dead-letters', {
    permission: PERMISSION,
    query: DeadLettersQuery,
    read: async ({ query }) => ({ dead_letters: await deps.runtime!.deadLetters(query.limit) }),
  });

  route.post('/admin/system/dead-letters/:id/retry', {
    permission: PERMISSION,
    params: DeadLetterParams,
    command: ({ params }) => deps.runtime!.retryDeadLetter(params.id),
    respond: (letter) => ({ dead_letter: letter }),
  });

  route.post('/admin/system/scheduled/:tenant_id/:message_id/retry', {
    permission: PERMISSION,
    params: ScheduledParams,
    command: ({ params, context }) =>
      deps.runtime!.retryScheduledMessage(params.tenant_id, params.message_id, context.actorId),
    respond: (message) => ({ scheduled_message: message }),
  });

  return router;
}
