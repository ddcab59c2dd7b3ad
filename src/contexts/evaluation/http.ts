import { Router } from 'express';
import type { PlatformDeps } from '../../platform/context-module';
import { Conflict, Forbidden, NotFound } from '../../platform/domain-errors';
import { commandContext } from '../../platform/http/command-context';
import { requireIdentity } from '../../platform/http/identity';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity';
import { CaptureService } from './captures';
import { RecordCaptureBody } from '../../../commands/evaluation/record-capture';
import { promoteEvalRun } from '../../../commands/evaluation/promote-eval-run';
import { captureMetrics, listOwnCaptures } from '../../../queries/evaluation/captures';
import { baselineRun, caseResults, findRun, listRuns, regressionsAgainst } from '../../../queries/evaluation/runs';
import { CapturesQuery, RunParams, RunsQuery } from './schemas';


function chatter(req: Parameters<typeof requireIdentity>[0]) {
  const identity = requireIdentity(req);
  if (!identity.permissions.includes('conversations.use')) throw new Forbidden('Missing permission: conversations.use');
  return identity;
}

export function createEvaluationApi(deps: PlatformDeps, captures: CaptureService): Router {
  const { knex } = deps;
  const router = Router();

  router.post('/eval/captures', async (req, res) => {
    chatter(req);
    const body = parseBody(req, RecordCaptureBody);
    res.json(await captures.capture(commandContext(req), body));
  });

  router.get('/eval/captures', async (req, res) => {
    const { tenantId, userId } = chatter(req);
    const { conversation_id } = parseQuery(req, CapturesQuery);
    res.json(await listOwnCaptures(knex, tenantId, userId, conversation_id));
  });

  router.get('/eval/metrics', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    res.json(await captureMetrics(knex, tenantId));
  });

  router.get('/eval/runs', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { limit } = parseQuery(req, RunsQuery);
    res.json(await listRuns(knex, tenantId, limit));
  });

  router.get('/eval/runs/:id', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, RunParams);
    const run = await findRun(knex, tenantId, id);
    if (!run) throw new NotFound(`No eval run ${id}`);
    res.json({ ...run, case_results: await caseResults(knex, tenantId, id) });
  });

  router.get('/eval/runs/:id/regressions', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, RunParams);
    const run = await findRun(knex, tenantId, id);
    if (!run) throw new NotFound(`No eval run ${id}`);
    const baseline = await baselineRun(knex, tenantId, run.model_id);
    if (!baseline) throw new Conflict(`No baseline run for model ${run.model_id}; promote a completed run of that model first`);
    const regressions = await regressionsAgainst(knex, tenantId, id, baseline.id);
    res.json({ run_id: id, model_id: run.model_id, baseline_run_id: baseline.id, regressions, total: regressions.length });
  });

  router.post('/eval/runs/:id/promote', async (req, res) => {
    requirePermission(req, 'evals.manage', deps);
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, RunParams);
    const { events } = await promoteEvalRun(deps, commandContext(req), id);
    const run = await findRun(knex, tenantId, id);
    if (!run) throw new NotFound(`No eval run ${id}`);
    const promoted = events.find((e) => e.type === 'BaselinePromoted');
    res.json({ ...run, demoted_run_id: promoted ? promoted.data.previousRunId : null });
  });

  return router;
}
