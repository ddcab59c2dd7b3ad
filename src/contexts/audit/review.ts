import type { Knex } from 'knex';
import type { EventStore } from '../../platform/eventstore/types';
import type { AuditSigner } from '../../platform/eventstore/audit-signature';
import type { AuditTarget } from '../../platform/audit/catalog';
import { findUsers } from '../identity';
import { AuditUsageError, type AuditRegistry } from '../../platform/audit/registry';
import { type AuditQuery, indexPage } from './timeline';

/** "nothing found for --user nobody@example.com": exit code 3 on the CLI, 404 over HTTP. */
export class NothingFound extends Error {
  readonly name = 'NothingFound';
}

export interface ReviewDeps {
  knex: Knex;
  store: EventStore;
  signer: AuditSigner;
  registry: AuditRegistry;
}

/** The reviewer's question in their own words (flags as the CLI and the query string name them). */
export interface ReviewFilters {
  tenantId: string;
  /** Entity flags: `{flag: 'user', value: 'ann@example.com'}`, `{flag: 'well', value: '42-123-45678'}`… */
  entities: Array<{ flag: string; value: string }>;
  actor?: string;
  correlation?: string;
  from?: Date;
  to?: Date;
}

export interface ResolvedReview {
  query: AuditQuery;
  targets: AuditTarget[];
  /** The filters in words, for the cover sheet and the export's own audit event. */
  described: Record<string, string>;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * `--from` / `--to` (and `--as-of`): an ISO 8601 date or date-time. A bare date means the
 * start of that day (UTC) for `from`, its end for `to` and `as-of`; a time without zone is UTC.
 */
export function parseReviewDate(flag: string, text: string, end = false): Date {
  const value = text.trim();
  let date: Date | null = null;
  if (DATE_ONLY.test(value)) date = new Date(`${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`);
  else if (DATE_TIME.test(value))
    date = new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value.replace(' ', 'T') : `${value.replace(' ', 'T')}Z`);
  if (!date || Number.isNaN(date.getTime())) {
    throw new AuditUsageError(
      `--${flag}: "${text}" is not a date; expected ISO 8601, e.g. 2026-03-03 or 2026-03-03T14:30:00Z`,
    );
  }
  return date;
}

/** Resolves entities, actor and request to an index query; NothingFound when a key names nothing. */
export async function resolveReview(deps: ReviewDeps, filters: ReviewFilters): Promise<ResolvedReview> {
  const { registry, knex } = deps;
  const described: Record<string, string> = {};
  const query: AuditQuery = { tenantId: filters.tenantId, from: filters.from, to: filters.to };
  const targets: AuditTarget[] = [];
  for (const { flag, value } of filters.entities) {
    const found = await registry.find({ knex }, flag, filters.tenantId, value);
    if (found.length === 0)
      throw new NothingFound(`nothing found for --${flag} ${value} in tenant ${filters.tenantId}`);
    targets.push(...found);
    described[flag] = value;
  }
  if (filters.entities.length > 0) {
    query.streams = [...new Set(targets.map((t) => registry.streamOf(t, filters.tenantId)))];
  }
  if (filters.actor !== undefined) {
    const users = await findUsers({ knex }, filters.tenantId, filters.actor);
    if (users.length === 0)
      throw new NothingFound(`nothing found for --actor ${filters.actor}: no such user in tenant ${filters.tenantId}`);
    query.actorIds = users.map((u) => u.id);
    described.actor = filters.actor;
  }
  if (filters.correlation !== undefined) {
    query.correlationId = filters.correlation;
    described.correlation = filters.correlation;
  }
  if (filters.from) described.from = filters.from.toISOString();
  if (filters.to) described.to = filters.to.toISOString();
  // A key that names something with no history at all is "nothing found" too (a mistyped
  // conversation id, a correlation id no request had); a time range that is merely empty is not.
  if (filters.entities.length > 0 || filters.correlation !== undefined) {
    const any = await indexPage(knex, { ...query, from: undefined, to: undefined }, 1);
    if (any.length === 0) {
      const what = Object.entries(described)
        .filter(([k]) => k !== 'from' && k !== 'to')
        .map(([k, v]) => `--${k} ${v}`)
        .join(' ');
      throw new NothingFound(`nothing found for ${what} in tenant ${filters.tenantId}`);
    }
  }
  return { query, targets, described };
}
