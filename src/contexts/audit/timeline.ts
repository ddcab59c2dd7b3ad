import type { Knex } from 'knex';
import type { AuditSigner } from '../../platform/eventstore/audit-signature';
import type { EventStore, RecordedEvent } from '../../platform/eventstore/types';
import { USERS_TABLE } from '../../../projections/identity/user-directory';
import { userEvolution, type UserState } from '../../../streams/identity/user';
import { type AuditAggregate, shown, typeInWords } from '../../platform/audit/catalog';
import { AUDIT_INDEX_TABLE, type AuditIndexRow } from '../../../projections/audit/event-index';
import type { AuditRegistry } from '../../platform/audit/registry';

/** Which events: always one tenant; any mix of entity streams, actors, one request, a time range. */
export interface AuditQuery {
  tenantId: string;
  streams?: string[];
  streamPrefixes?: string[];
  actorIds?: string[];
  correlationId?: string;
  from?: Date;
  to?: Date;
  /** Keyset: events strictly after this log position (`commit/prepare`). */
  after?: string;
}

export interface AuditChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** One line of the reviewer's timeline. */
export interface AuditEntry {
  /** The event's log position, `commit/prepare`: the keyset cursor. */
  position: string;
  time: string;
  entity: { kind: string; id: string };
  revision: number;
  type: string;
  eventId: string;
  actor: { id: string; email: string | null; roles: string[] };
  summary: string;
  /** The audit action a command named (e.g. `platform_settings.update`), when it named one. */
  action: string | null;
  changes: AuditChange[];
  correlationId: string;
  causationId: string;
  signature: 'verified' | 'tampered';
}

const POSITION = /^(\d{1,20})\/(\d{1,20})$/;

export function parseCursor(text: string): [string, string] | null {
  const m = POSITION.exec(text);
  return m ? [m[1], m[2]] : null;
}

function applyFilters(q: Knex.QueryBuilder, query: AuditQuery): Knex.QueryBuilder {
  q.where('tenant_id', query.tenantId);
  if (query.streams) q.whereIn('stream', query.streams.length ? query.streams : ['\u0000']);
  if (query.streamPrefixes) {
    const prefixes = query.streamPrefixes;
    q.andWhere((w) => {
      for (const p of prefixes) w.orWhere('stream', 'like', `${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    });
  }
  if (query.actorIds) q.whereIn('actor_id', query.actorIds.length ? query.actorIds : ['\u0000']);
  if (query.correlationId !== undefined) q.where('correlation_id', query.correlationId);
  if (query.from) q.where('recorded_at', '>=', query.from);
  if (query.to) q.where('recorded_at', '<=', query.to);
  return q;
}

/** One keyset page of the index, in log order. */
export async function indexPage(knex: Knex, query: AuditQuery, limit: number): Promise<AuditIndexRow[]> {
  const q = applyFilters(
    knex(AUDIT_INDEX_TABLE).select(
      'commit',
      'prepare',
      'tenant_id',
      'stream',
      'revision',
      'type',
      'actor_id',
      'correlation_id',
      'recorded_at',
    ),
    query,
  );
  const cursor = query.after ? parseCursor(query.after) : null;
  if (cursor) q.whereRaw('(commit, prepare) > (?::bigint, ?::bigint)', cursor);
  return q.orderBy([{ column: 'commit' }, { column: 'prepare' }]).limit(limit);
}

/** The index rows matching a query, page by page (bounded memory however long the history). */
export async function* indexRows(knex: Knex, query: AuditQuery, pageSize = 1000): AsyncGenerator<AuditIndexRow[]> {
  let after = query.after;
  for (;;) {
    const page = await indexPage(knex, { ...query, after }, pageSize);
    if (page.length === 0) return;
    yield page;
    if (page.length < pageSize) return;
    const last = page[page.length - 1];
    after = `${last.commit}/${last.prepare}`;
  }
}

/** The distinct streams a query touches, with how many of its events each holds. */
export async function streamsOf(knex: Knex, query: AuditQuery): Promise<Array<{ stream: string; events: number }>> {
  const rows: Array<{ stream: string; events: string }> = await applyFilters(
    knex(AUDIT_INDEX_TABLE).select('stream').count({ events: '*' }),
    query,
  )
    .groupBy('stream')
    .orderBy('stream');
  return rows.map((r) => ({ stream: r.stream, events: Number(r.events) }));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** Fields as dotted paths (three levels deep), for a before → after list. */
export function flatten(
  value: unknown,
  hidden: readonly string[] = [],
  prefix = '',
  out: Record<string, unknown> = {},
  depth = 0,
): Record<string, unknown> {
  if (!isPlainObject(value) || depth >= 3) {
    out[prefix || 'value'] = value;
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (hidden.includes(path)) continue;
    if (isPlainObject(v) && Object.keys(v).length > 0) flatten(v, hidden, path, out, depth + 1);
    else out[path] = v;
  }
  return out;
}

export function diff(before: unknown, after: unknown, hidden: readonly string[] = []): AuditChange[] {
  const a = flatten(before, hidden);
  const b = flatten(after, hidden);
  const changes: AuditChange[] = [];
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[field]) !== JSON.stringify(b[field]))
      changes.push({ field, before: a[field] ?? null, after: b[field] ?? null });
  }
  return changes.sort((x, y) => (x.field === 'status' ? -1 : y.field === 'status' ? 1 : 0));
}

interface Step {
  event: RecordedEvent;
  before: unknown;
  after: unknown;
  verified: boolean;
  unreadable?: string;
}

const PAGE = 1000;

/**
 * Walks one stream forward from revision 0, folding with its aggregate and checking each
 * signature against its predecessor's (the chain `ops audit verify` checks), so every entry
 * knows its state before and after and whether it is signed as stored.
 */
class StreamCursor {
  private next = 0n;
  private previous: string | null = null;
  private state: unknown;
  private buffer: RecordedEvent[] = [];
  private exhausted = false;

  constructor(
    private readonly store: EventStore,
    private readonly signer: AuditSigner,
    readonly stream: string,
    private readonly aggregate: AuditAggregate | undefined,
  ) {
    this.state = aggregate?.aggregate.initialState;
  }

  get position(): bigint {
    return this.next;
  }

  /** Reads no further than `upTo` (what the current index page needs), at most a page at a time. */
  private async pull(upTo: bigint): Promise<RecordedEvent | undefined> {
    if (this.buffer.length === 0 && !this.exhausted) {
      const limit = Math.min(PAGE, Math.max(1, Number(upTo - this.next + 1n)));
      this.buffer = await this.store.readStream(this.stream, { from: this.next, limit });
      if (this.buffer.length < limit) this.exhausted = this.buffer.length === 0;
    }
    return this.buffer.shift();
  }

  /**
   * The step for `revision`, folding every event before it; null when the stream has no such
   * event. `readUpTo` (≥ revision) lets one read serve the later revisions of the same page.
   */
  async take(revision: bigint, readUpTo = revision): Promise<Step | null> {
    for (;;) {
      const event = await this.pull(readUpTo > revision ? readUpTo : revision);
      if (!event) return null;
      const verified = event.revision === this.next && this.signer.matches(event, this.previous);
      const before = this.state;
      let unreadable: string | undefined;
      if (this.aggregate) {
        try {
          this.state = this.aggregate.aggregate.evolve(this.state, this.aggregate.aggregate.read(event));
        } catch (error) {
          const issues = (error as { issues?: Array<{ path: Array<string | number>; message: string }> }).issues;
          unreadable = issues
            ? issues.map((i) => `${i.path.join('.') || 'data'}: ${i.message}`).join('; ')
            : error instanceof Error
              ? error.message
              : String(error);
        }
      }
      this.previous = String(event.metadata.signature ?? '');
      this.next = event.revision + 1n;
      if (event.revision === revision) return { event, before, after: this.state, verified, unreadable };
      if (event.revision > revision) return null;
    }
  }
}

interface ActorMoment {
  at: number;
  email: string;
  roles: string[];
}

/**
 * Who an actor was at a moment: their identity user stream folded up to that time (e-mail
 * and roles as they stood then, not as they stand now). One fold per actor, cached.
 */
export class ActorResolver {
  private readonly cache = new Map<string, ActorMoment[] | null>();

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
  ) {}

  async history(actorId: string): Promise<ActorMoment[] | null> {
    if (this.cache.has(actorId)) return this.cache.get(actorId)!;
    let moments: ActorMoment[] | null = null;
    const row: { tenant_id: string } | undefined = /^[0-9a-f-]{36}$/i.test(actorId)
      ? await this.knex(USERS_TABLE).select('tenant_id').where({ id: actorId }).first()
      : undefined;
    if (row) {
      moments = [];
      let state: UserState = userEvolution.initialState;
      for (const event of await this.store.readStream(userEvolution.stream(row.tenant_id, actorId))) {
        try {
          state = userEvolution.evolve(state, userEvolution.read(event));
        } catch {
          continue;
        }
        if (state.status !== 'none')
          moments.push({
            at: event.recordedAt.getTime(),
            email: state.email,
            roles: state.status === 'disabled' ? [] : [...state.roles],
          });
      }
    }
    this.cache.set(actorId, moments);
    return moments;
  }

  async at(actorId: string, time: Date): Promise<AuditEntry['actor']> {
    const moments = await this.history(actorId);
    if (!moments || moments.length === 0) return { id: actorId, email: null, roles: [] };
    let current: ActorMoment | undefined;
    for (const m of moments) {
      if (m.at <= time.getTime()) current = m;
      else break;
    }
    return { id: actorId, email: current?.email ?? moments[0].email, roles: current?.roles ?? [] };
  }
}

export interface AuditReaderDeps {
  knex: Knex;
  store: EventStore;
  signer: AuditSigner;
  registry: AuditRegistry;
}

const MAX_CURSORS = 2000;

/** Turns index rows into timeline entries; keeps per-stream cursors across pages. */
export class AuditReader {
  private readonly cursors = new Map<string, StreamCursor>();
  readonly actors: ActorResolver;
  verified = 0;
  tamperedCount = 0;
  /** The first 1,000 tampered entries (the count goes on). */
  tampered: AuditEntry[] = [];

  constructor(private readonly deps: AuditReaderDeps) {
    this.actors = new ActorResolver(deps.knex, deps.store);
  }

  private cursorFor(stream: string, tenantId: string, revision: bigint): StreamCursor {
    let cursor = this.cursors.get(stream);
    if (!cursor || cursor.position > revision) {
      const entity = this.deps.registry.entityOf(stream, tenantId);
      cursor = new StreamCursor(
        this.deps.store,
        this.deps.signer,
        stream,
        entity.known ? this.deps.registry.aggregate(entity.kind) : undefined,
      );
    } else this.cursors.delete(stream);
    this.cursors.set(stream, cursor);
    if (this.cursors.size > MAX_CURSORS) this.cursors.delete(this.cursors.keys().next().value!);
    return cursor;
  }

  async entry(row: AuditIndexRow, readUpTo?: bigint): Promise<AuditEntry | null> {
    const revision = BigInt(row.revision);
    const step = await this.cursorFor(row.stream, row.tenant_id, revision).take(revision, readUpTo);
    if (!step) return null;
    const { event } = step;
    const entity = this.deps.registry.entityOf(event.stream, row.tenant_id);
    const aggregate = entity.known ? this.deps.registry.aggregate(entity.kind) : undefined;
    let summary: string;
    let changes: AuditChange[];
    if (aggregate && !step.unreadable) {
      changes = diff(step.before, step.after, aggregate.hiddenFields);
      summary =
        aggregate.describe?.({ type: event.type, data: event.data }, step.before, step.after) ??
        typeInWords(event.type);
    } else {
      changes = diff(undefined, event.data).map((c) => ({ ...c, before: null }));
      summary = step.unreadable
        ? `${typeInWords(event.type)} (unreadable by its aggregate: ${step.unreadable})`
        : typeInWords(event.type);
    }
    const entry: AuditEntry = {
      position: `${row.commit}/${row.prepare}`,
      time: event.recordedAt.toISOString(),
      entity: { kind: entity.kind, id: entity.id },
      revision: Number(event.revision),
      type: event.type,
      eventId: event.id,
      actor: await this.actors.at(String(event.metadata.actorId), event.recordedAt),
      summary,
      action: typeof event.metadata.action === 'string' ? event.metadata.action : null,
      changes,
      correlationId: String(event.metadata.correlationId ?? ''),
      causationId: String(event.metadata.causationId ?? ''),
      signature: step.verified ? 'verified' : 'tampered',
    };
    if (step.verified) this.verified++;
    else {
      this.tamperedCount++;
      if (this.tampered.length < 1000) this.tampered.push(entry);
    }
    return entry;
  }

  /** Every entry a query matches, in log order, page by page. */
  async *entries(query: AuditQuery, pageSize = 1000): AsyncGenerator<AuditEntry> {
    for await (const page of indexRows(this.deps.knex, query, pageSize)) {
      // Each stream is read up to its last revision on this page and no further: buffered
      // events stay within one page however many streams the page touches.
      const lastOnPage = new Map<string, bigint>();
      for (const row of page) lastOnPage.set(row.stream, BigInt(row.revision));
      for (const row of page) {
        const entry = await this.entry(row, lastOnPage.get(row.stream));
        if (entry) yield entry;
      }
    }
  }
}

export const changeText = (c: AuditChange) => `${c.field}: ${shown(c.before)} → ${shown(c.after)}`;
