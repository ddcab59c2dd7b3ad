import { Request, Router } from 'express';
import { assess } from '../../../commands/compliance/record-assessment';
import { deadlinesChart, filingsChart, flaringChart, trendChart } from '../../../queries/compliance/charts';
import { matrix, SortColumn, summary } from '../../../queries/compliance/dashboard';
import { entityStatus, verdictHistory } from '../../../queries/compliance/entity-status';
import { domainList } from './packs';
import type { DomainPack } from './packs/pack';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound } from '../../platform/domain-errors';
import { commandContext } from '../../platform/http/command-context';
import { requireIdentity } from '../../platform/http/identity';
import { parseParams, parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity/require-permission';
import { DeadlinesQuery, EntityParams, FlaringQuery, MatrixQuery, SummaryQuery, TrendQuery } from './schemas';

/**
 * Compliance dashboard (spec 2 §4 "Compliance dashboard"): reads need `dashboards.read`;
 * an assessment writes events for the whole portfolio, so it needs `compliance.assess`.
 */

const READ = 'dashboards.read';
const ASSESS = 'compliance.assess';

/** `as_of`: an ISO 8601 instant; the dashboard as the log stood then. */

export function createComplianceApi(deps: PlatformDeps, packs: DomainPack<any>[]): Router {
  const { knex } = deps;
  const domains = packs.map((p) => p.domain);
  const router = Router();

  const reader = (req: Request) => {
    requirePermission(req, READ, deps);
    return requireIdentity(req).tenantId;
  };
  /** A past instant reads the log as it stood then; a future one is today. */
  const instant = (asOf: string | undefined) => {
    const now = deps.clock();
    if (asOf === undefined) return now;
    const at = new Date(asOf);
    return at < now ? at : now;
  };

  router.get('/compliance/summary', async (req, res) => {
    const tenantId = reader(req);
    const { as_of } = parseQuery(req, SummaryQuery);
    res.json(await summary(knex, tenantId, instant(as_of), domains));
  });

  router.get('/compliance/matrix', async (req, res) => {
    const tenantId = reader(req);
    const { as_of, sort_by, ...q } = parseQuery(req, MatrixQuery);
    const sort = { sort_by: sort_by.replace(/^-/, '') as SortColumn, descending: sort_by.startsWith('-') };
    const at = instant(as_of);
    // No as_of, or one in the future: the current rows.
    const current = as_of === undefined || new Date(as_of) > at;
    res.json(await matrix(knex, tenantId, at, packs, { ...q, ...sort, current }));
  });

  router.get('/compliance/entities/:entity_id', async (req, res) => {
    const tenantId = reader(req);
    const { entity_id } = parseParams(req, EntityParams);
    const status = await entityStatus(knex, tenantId, entity_id, domains);
    if (!status) throw new NotFound('No assessed entity with this id');
    res.json({ ...status, history: await verdictHistory(knex, tenantId, status.entity_id, domains, 50) });
  });

  router.get('/compliance/domains', async (req, res) => {
    reader(req);
    res.json(domainList(packs));
  });

  router.get('/compliance/charts/deadlines', async (req, res) => {
    const tenantId = reader(req);
    const { weeks } = parseQuery(req, DeadlinesQuery);
    res.json(await deadlinesChart(knex, tenantId, domains, deps.clock().toISOString().slice(0, 10), weeks));
  });

  router.get('/compliance/charts/trend', async (req, res) => {
    const tenantId = reader(req);
    const { days } = parseQuery(req, TrendQuery);
    res.json(await trendChart(knex, tenantId, domains, deps.clock(), days));
  });

  router.get('/compliance/charts/filings', async (req, res) => {
    const tenantId = reader(req);
    res.json(await filingsChart(knex, tenantId, packs, deps.clock()));
  });

  router.get('/compliance/charts/flaring', async (req, res) => {
    const tenantId = reader(req);
    const { months } = parseQuery(req, FlaringQuery);
    res.json(await flaringChart(knex, tenantId, deps.clock().toISOString().slice(0, 10), months));
  });

  router.post('/compliance/assess', async (req, res) => {
    requirePermission(req, ASSESS, deps);
    res.json(await assess(deps, packs, commandContext(req)));
  });

  router.post('/compliance/assess/:entity_id', async (req, res) => {
    requirePermission(req, ASSESS, deps);
    const { entity_id } = parseParams(req, EntityParams);
    res.json(await assess(deps, packs, commandContext(req), entity_id));
  });

  return router;
}
