import { Router } from 'express';
import { type z } from 'zod';
import { recordAuditExport } from '../../../commands/audit/record-export';
import { auditEventIndexProjector } from '../../../projections/audit/event-index';
import { findUsers } from '../identity';
import { exportText, exportXlsx } from './export';
import { AuditUsageError, type AuditRegistry } from '../../platform/audit/registry';
import { NothingFound, parseReviewDate, resolveReview, type ReviewDeps, type ReviewFilters } from './review';
import { type AuditEntry, AuditReader, indexPage } from './timeline';
import type { PlatformDeps } from '../../platform/context-module';
import { Invalid, NotFound, ValidationFailed } from '../../platform/domain-errors';
import { AuditSigner } from '../../platform/eventstore/audit-signature';
import { commandContext } from '../../platform/http/command-context';
import { requireIdentity } from '../../platform/http/identity';
import { declareRoutes } from '../../platform/http/route';
import { parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity';
import { ENTITY_FLAGS, EventsQuery, ExportQuery, type FilterQuery } from './schemas';

/**
 * The audit review over HTTP: `GET /admin/audit/events` and `/admin/audit/export`.
 * Admin role (the gateway's /admin gate) plus `audit.read`; always the caller's tenant.
 */
const PERMISSION = 'audit.read';

function dateOf(flag: 'from' | 'to', text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  try {
    return parseReviewDate(flag, text, flag === 'to');
  } catch (error) {
    throw new ValidationFailed([{ loc: ['query', flag], msg: (error as Error).message, type: 'value_error.date' }]);
  }
}

function filtersOf(tenantId: string, q: z.infer<typeof FilterQuery>): ReviewFilters {
  return {
    tenantId,
    entities: ENTITY_FLAGS.filter((f) => q[f] !== undefined).map((f) => ({ flag: f, value: q[f]! })),
    actor: q.actor,
    correlation: q.correlation,
    from: dateOf('from', q.from),
    to: dateOf('to', q.to),
  };
}

async function resolved(deps: ReviewDeps, filters: ReviewFilters) {
  try {
    return await resolveReview(deps, filters);
  } catch (error) {
    if (error instanceof NothingFound) throw new NotFound(error.message);
    if (error instanceof AuditUsageError) throw new Invalid(error.message);
    throw error;
  }
}

export const wireEntry = (e: AuditEntry) => ({
  position: e.position,
  time: e.time,
  entity: e.entity,
  revision: e.revision,
  type: e.type,
  event_id: e.eventId,
  actor: e.actor,
  summary: e.summary,
  action: e.action,
  changes: e.changes,
  correlation_id: e.correlationId,
  causation_id: e.causationId,
  signature: e.signature,
});

export function reviewDepsOf(deps: PlatformDeps, registry: AuditRegistry): ReviewDeps {
  return { knex: deps.knex, store: deps.store, signer: new AuditSigner(deps.config.auditSigningKey), registry };
}

/** The index is eventual (commands do not wait for it): a review reads the log as it stands now. */
async function catchUpIndex(deps: PlatformDeps): Promise<void> {
  if (!(await deps.projections.catchUp(auditEventIndexProjector.name, deps.config.projectionWaitMs)))
    deps.logger.warn(
      'the audit index did not reach the head of the log in time; the review may miss the newest events',
    );
}

/** GET /admin/audit/events: one page of the review and the cursor of the next. */
async function eventsPage(deps: PlatformDeps, review: ReviewDeps, tenantId: string, q: z.infer<typeof EventsQuery>) {
  await catchUpIndex(deps);
  const { query } = await resolved(review, filtersOf(tenantId, q));
  const rows = await indexPage(deps.knex, { ...query, after: q.cursor }, q.limit + 1);
  const page = rows.slice(0, q.limit);
  const reader = new AuditReader(review);
  const events: ReturnType<typeof wireEntry>[] = [];
  const lastOnPage = new Map(page.map((row) => [row.stream, BigInt(row.revision)] as const));
  for (const row of page) {
    const entry = await reader.entry(row, lastOnPage.get(row.stream));
    if (entry) events.push(wireEntry(entry));
  }
  const last = page[page.length - 1];
  return { events, next_cursor: rows.length > q.limit && last ? `${last.commit}/${last.prepare}` : null };
}

export function createAuditApi(deps: PlatformDeps, registry: AuditRegistry): Router {
  const review = reviewDepsOf(deps, registry);
  const router = Router();
  const route = declareRoutes(router, deps, requirePermission);

  route.get('/admin/audit/events', {
    permission: PERMISSION,
    query: EventsQuery,
    read: ({ identity, query }) => eventsPage(deps, review, identity.tenantId, query),
  });

  // A custom body: the export streams a file (xlsx, csv or json) with its own headers.
  router.get('/admin/audit/export', async (req, res) => {
    requirePermission(req, PERMISSION, deps);
    const identity = requireIdentity(req);
    const q = parseQuery(req, ExportQuery);
    await catchUpIndex(deps);
    const r = await resolved(review, filtersOf(identity.tenantId, q));
    const exportId = await recordAuditExport(deps, commandContext(req), {
      format: q.format,
      filters: r.described,
      via: 'http',
    });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const types = {
      xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      csv: 'text/csv; charset=utf-8',
      json: 'application/json; charset=utf-8',
    };
    res.setHeader('Content-Type', types[q.format]);
    res.setHeader('Content-Disposition', `attachment; filename="audit-${stamp}.${q.format}"`);
    res.setHeader('X-Audit-Export-Id', exportId);
    try {
      if (q.format === 'xlsx') {
        const [me] = await findUsers({ knex: deps.knex }, identity.tenantId, identity.userId);
        await exportXlsx(review, r, res, {
          exportedBy: me ? `${me.email} (${identity.userId})` : identity.userId,
          exportId,
        });
      } else await exportText(review, r, q.format, res);
      res.end();
    } catch (error) {
      // Headers are gone: cut the download short rather than hand over a partial file as whole.
      deps.logger.error({ err: error, exportId }, 'audit export failed mid-stream');
      res.destroy(error as Error);
    }
  });

  return router;
}
