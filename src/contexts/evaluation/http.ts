import { Router } from 'express';
import type { PlatformDeps } from '../../platform/context-module';
import { Forbidden } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';
import { type Authorize, declareRoutes } from '../../platform/http/route';
import { requirePermission } from '../identity';
import { type CaptureService } from './captures';
import { RecordCaptureBody } from '../../../commands/evaluation/record-capture';
import { promoteEvalRun } from '../../../commands/evaluation/promote-eval-run';
import { captureMetrics, listOwnCaptures } from '../../../queries/evaluation/captures';
import { listRuns, regressionsOf, runWithCases, visibleRun } from '../../../queries/evaluation/runs';
import { CapturesQuery, RunParams, RunsQuery } from './schemas';

const CHAT = 'conversations.use';

/** The chat permission is enforced whatever SVC_AUTH_MODE says, the others as the identity context decides. */
const authorize: Authorize = (req, permission, deps) => {
  if (permission !== CHAT) return requirePermission(req, permission, deps);
  if (!requireIdentity(req).permissions.includes(CHAT)) throw new Forbidden(`Missing permission: ${CHAT}`);
};

export function createEvaluationApi(deps: PlatformDeps, captures: CaptureService): Router {
  const { knex } = deps;
  const router = Router();
  const route = declareRoutes(router, deps, authorize);

  route.post('/eval/captures', {
    permission: CHAT,
    body: RecordCaptureBody,
    command: ({ context, body }) => captures.capture(context, body),
  });

  route.get('/eval/captures', {
    permission: CHAT,
    query: CapturesQuery,
    read: ({ identity, query }) => listOwnCaptures(knex, identity.tenantId, identity.userId, query.conversation_id),
  });

  route.get('/eval/metrics', { read: ({ identity }) => captureMetrics(knex, identity.tenantId) });

  route.get('/eval/runs', {
    query: RunsQuery,
    read: ({ identity, query }) => listRuns(knex, identity.tenantId, query.limit),
  });

  route.get('/eval/runs/:id', {
    params: RunParams,
    read: ({ identity, params }) => runWithCases(knex, identity.tenantId, params.id),
  });

  route.get('/eval/runs/:id/regressions', {
    params: RunParams,
    read: ({ identity, params }) => regressionsOf(knex, identity.tenantId, params.id),
  });

  route.post('/eval/runs/:id/promote', {
    permission: 'evals.manage',
    params: RunParams,
    command: ({ params, context }) => promoteEvalRun(deps, context, params.id),
    respond: async ({ events }, { identity, params }) => {
      const promoted = events.find((e) => e.type === 'BaselinePromoted');
      return {
        ...(await visibleRun(knex, identity.tenantId, params.id)),
        demoted_run_id: promoted ? promoted.data.previousRunId : null,
      };
    },
  });

  return router;
}
