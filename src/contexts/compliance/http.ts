import { Router } from 'express';
import { assess } from '../../../commands/compliance/record-assessment';
import { deadlinesChart, filingsChart, flaringChart, trendChart } from '../../../queries/compliance/charts';
import { matrix, type SortColumn, summary } from '../../../queries/compliance/dashboard';
import { domainList } from '../../../commands/compliance/packs';
import type { DomainPack } from '../../../commands/compliance/packs/pack';
import type { PlatformDeps } from '../../platform/context-module';
import { declareRoutes } from '../../platform/http/route';
import { requirePermission } from '../identity';
import { entityStatus, verdictHistory } from '../../../queries/compliance/entity-status';
import { DeadlinesQuery, EntityParams, FlaringQuery, MatrixQuery, SummaryQuery, TrendQuery } from './schemas';

/**
 * Compliance dashboard: reads need `dashboards.read`;
 * an assessment writes events for the whole portfolio, so it needs `compliance.assess`.
 */

const READ = 'dashboards.read';
const ASSESS = 'compliance.assess';

export function createComplianceApi(deps: PlatformDeps, packs: DomainPack<any>[]): Router {
  const { knex } = deps;
  const domains = packs.map((p) => p.domain);
  const router = Router();

  const route = declareRoutes(router, deps, requirePermission);
  /** A past instant reads the log as it stood then; a future one is today. */
  const instant = (asOf: string | undefined) => {
    const now = deps.clock();
    if (asOf === undefined) return now;
    const at = new Date(asOf);
    return at < now ? at : now;
  };
  const today = () => deps.clock().toISOString().slice(0, 10);

  route.get('/compliance/summary', {
    permission: READ,
    query: SummaryQuery,
    read: ({ identity, query }) => summary(knex, identity.tenantId, instant(query.as_of)),
  });

  route.get('/compliance/matrix', {
    permission: READ,
    query: MatrixQuery,
    read: ({ identity, query: { as_of, sort_by, ...q } }) => {
      const sort = { sort_by: sort_by.replace(/^-/, '') as SortColumn, descending: sort_by.startsWith('-') };
      const at = instant(as_of);
      // No as_of, or one in the future: the current rows.
      const current = as_of === undefined || new Date(as_of) > at;
      return matrix(knex, identity.tenantId, at, packs, { ...q, ...sort, current });
    },
  });

  route.get('/compliance/entities/:entity_id', {
    permission: READ,
    params: EntityParams,
    notFound: 'No assessed entity with this id',
    read: async ({ identity, params }) => {
      const status = await entityStatus(knex, identity.tenantId, params.entity_id, domains);
      return (
        status && { ...status, history: await verdictHistory(knex, identity.tenantId, status.entity_id, domains, 50) }
      );
    },
  });

  route.get('/compliance/domains', { permission: READ, read: () => domainList(packs) });

  route.get('/compliance/charts/deadlines', {
    permission: READ,
    query: DeadlinesQuery,
    read: ({ identity, query }) => deadlinesChart(knex, identity.tenantId, domains, today(), query.weeks),
  });

  route.get('/compliance/charts/trend', {
    permission: READ,
    query: TrendQuery,
    read: ({ identity, query }) => trendChart(knex, identity.tenantId, domains, deps.clock(), query.days),
  });

  route.get('/compliance/charts/filings', {
    permission: READ,
    read: ({ identity }) => filingsChart(knex, identity.tenantId, packs, deps.clock()),
  });

  route.get('/compliance/charts/flaring', {
    permission: READ,
    query: FlaringQuery,
    read: ({ identity, query }) => flaringChart(knex, identity.tenantId, today(), query.months),
  });

  route.post('/compliance/assess', { permission: ASSESS, command: ({ context }) => assess(deps, packs, context) });

  route.post('/compliance/assess/:entity_id', {
    permission: ASSESS,
    params: EntityParams,
    command: ({ params, context }) => assess(deps, packs, context, params.entity_id),
  });

  return router;
}
