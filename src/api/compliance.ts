import { Request, Router } from 'express';
import { z } from 'zod';
import { assess } from '../../commands/compliance/record-assessment';
import { complianceDashboardProjector } from '../../projections/compliance/dashboard';
import { deadlinesChart, filingsChart, flaringChart, trendChart } from '../../queries/compliance/charts';
import { MATRIX_BUCKETS, MATRIX_STATUSES, matrix, SORT_COLUMNS, SortColumn, summary } from '../../queries/compliance/dashboard';
import { DEFAULT_PACKS, domainList } from '../compliance/packs';
import type { DomainPack } from '../compliance/packs/pack';
import type { ContextModule, PlatformDeps } from '../context-module';
import { commandContext } from '../http/command-context';
import { requireIdentity } from '../http/identity';
import { parseParams, parseQuery } from '../http/validation';
import { requirePermission } from '../identity/require-permission';
import { complianceAuditCatalog } from '../audit/catalogs/compliance';

/** Compliance dashboard (spec 2 §4 "Compliance dashboard"); every route needs `dashboards.read`. */

const READ = 'dashboards.read';

/** `as_of`: an ISO 8601 instant; the dashboard as the log stood then. */
const AsOf = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, 'an ISO 8601 timestamp')
  .refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO 8601 timestamp')
  .optional();
const SummaryQuery = z.object({ as_of: AsOf });
const SortBy = z
  .string()
  .default('entity_name')
  .refine((s) => (SORT_COLUMNS as readonly string[]).includes(s.replace(/^-/, '')), { message: `one of ${SORT_COLUMNS.join(', ')}, optionally prefixed with - for descending` });
const MatrixQuery = z.object({
  as_of: AsOf,
  entity_type: z.string().min(1).max(64).optional(),
  status: z.enum(MATRIX_STATUSES).optional(),
  bucket: z.enum(MATRIX_BUCKETS).optional(),
  search: z.string().max(200).optional(),
  sort_by: SortBy,
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
});
const TrendQuery = z.object({ days: z.coerce.number().int().min(1).max(366).default(30) });
const DeadlinesQuery = z.object({ weeks: z.coerce.number().int().min(1).max(52).default(12) });
const FlaringQuery = z.object({ months: z.coerce.number().int().min(1).max(36).default(12) });
const EntityParams = z.object({ entity_id: z.string().min(1).max(200) });

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
    res.json(await matrix(knex, tenantId, instant(as_of), domains, { ...q, ...sort }));
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
    reader(req);
    res.json(await assess(deps, packs, commandContext(req)));
  });

  router.post('/compliance/assess/:entity_id', async (req, res) => {
    reader(req);
    const { entity_id } = parseParams(req, EntityParams);
    res.json(await assess(deps, packs, commandContext(req), entity_id));
  });

  return router;
}

/** The compliance context with a given set of domain packs (tests install failing ones). */
export function createComplianceContext(packs: DomainPack<any>[] = DEFAULT_PACKS): ContextModule {
  return {
    name: 'compliance',
    audit: complianceAuditCatalog,
    projectors: [complianceDashboardProjector(packs)],
    publicRouter: (deps) => createComplianceApi(deps, packs),
  };
}

export const complianceContext = createComplianceContext();
