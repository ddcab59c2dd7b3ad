import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The platform's Prometheus metrics (docs/operations.md#metrics lists each with its labels).
 * One registry per platform instance, never prom-client's global one: tests start several
 * platforms in one process, and each must export only what it measured.
 *
 * Two ways in: counters and histograms the code moves as things happen (one call at the
 * place), and gauges read at scrape time from the runtime's own reports (`observeRuntime`),
 * so a lane's lag is what /health would say at that moment and no loop keeps it up to date.
 */

export type LaneMetricKind = 'projection' | 'reactor' | 'scheduler';

/** One lane at scrape time, as the runtime reports it. */
export interface LaneSnapshot {
  kind: LaneMetricKind;
  lane: string;
  lagEvents: number;
  lagSeconds: number;
  /** Unresolved dead letters (events or scheduled messages parked until `ops … retry`). */
  deadLetters: number;
}

/** What the scrape reads from the runtime and the database (`observeRuntime`). */
export interface RuntimeSnapshot {
  lanes: LaneSnapshot[];
  /** Per kind: whether its wake-up subscription is up (null: it polls) and whether this instance leads it. */
  kinds: Array<{ kind: LaneMetricKind; subscribed: boolean | null; leader: boolean }>;
  /** Scheduled messages whose time has come, and those of them due longer than `overdueAfterS`. */
  scheduled: { due: number; overdue: number };
  /** Connections of each pool: checked out, and requests waiting for one. */
  pools: Array<{ pool: string; inUse: number; waiting: number }>;
}

/** A tenant's use of one daily cap today: settled usage over the cap. */
export interface BudgetUse {
  tenantId: string;
  cap: 'tokens' | 'cost';
  ratio: number;
}

/** The label of a tenant (or model) beyond the configured cap: every such one shares it. */
export const OTHER = 'other';

/** The route label of a request no route matched (404s, static files): raw paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * A context's view of the events appended through this instance: the kernel calls `observe`
 * for each appended event of a type in `types` (docs/recipes.md#add-a-metric).
 */
export interface EventMeter {
  types: readonly string[];
  observe(event: { type: string; data: unknown; metadata: { tenantId: string } }, metrics: PlatformMetrics): void;
}

export interface MetricsOptions {
  /** Tenants that get a label of their own (first come); the rest are counted as `other`. 0: none. */
  tenantLabels?: number;
  /** The Node process metrics (heap, event loop lag, GC…); off in unit tests that count series. */
  defaultMetrics?: boolean;
}

/** The most distinct model ids labelled (the curated list is far smaller): a bound should the list ever open up. */
const MODEL_LABELS = 50;

/** Keeps a label's values bounded: the first `cap` distinct values pass, later ones become `other`. */
class BoundedLabel {
  private readonly seen = new Set<string>();
  constructor(private readonly cap: number) {}
  of(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.cap) return OTHER;
    this.seen.add(value);
    return value;
  }
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LONG_SECONDS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800];

export class PlatformMetrics {
  readonly registry = new Registry();
  private readonly tenants: BoundedLabel;
  private readonly models = new BoundedLabel(MODEL_LABELS);
  private readonly meters = new Map<string, EventMeter[]>();
  private runtime: (() => Promise<RuntimeSnapshot>) | null = null;
  private budgets: (() => Promise<BudgetUse[]>) | null = null;
  private snapshot: { at: number; value: Promise<RuntimeSnapshot | null> } | null = null;

  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly appends: Counter<'result'>;
  readonly appendEvents: Histogram;
  readonly appendDuration: Histogram;
  readonly concurrencyConflicts: Counter;
  readonly laneBatchDuration: Histogram<'kind' | 'lane'>;
  readonly laneRetries: Counter<'kind' | 'lane' | 'cause'>;
  readonly laneDeadLettered: Counter<'kind' | 'lane'>;
  readonly sseStreams: Gauge;
  readonly turns: Counter<'status' | 'tenant'>;
  readonly modelTokens: Counter<'model' | 'provider' | 'direction' | 'tenant'>;
  readonly modelCost: Counter<'model' | 'provider' | 'tenant'>;
  readonly tenantBudgetUsed: Gauge<'tenant' | 'cap'>;
  readonly complianceRunDuration: Histogram<'scope' | 'status'>;
  readonly complianceEntities: Counter<'scope'>;
  readonly complianceCells: Counter<'color'>;
  readonly importRows: Counter<'kind' | 'outcome'>;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    this.tenants = new BoundedLabel(options.tenantLabels ?? 50);
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });

    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS,
      registers,
    });
    this.appends = new Counter({
      name: 'eventstore_appends_total',
      help: 'Appends to the event store (one per append or multi-stream append) by result: ok, conflict, error',
      labelNames: ['result'],
      registers,
    });
    this.appendEvents = new Histogram({
      name: 'eventstore_append_events',
      help: 'Events written per successful append',
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
      registers,
    });
    this.appendDuration = new Histogram({
      name: 'eventstore_append_duration_seconds',
      help: 'Time of one append, whatever its result',
      buckets: SECONDS,
      registers,
    });
    this.concurrencyConflicts = new Counter({
      name: 'eventstore_concurrency_conflicts_total',
      help: 'Appends refused because a stream was not at the expected revision',
      registers,
    });
    this.laneBatchDuration = new Histogram({
      name: 'lane_batch_duration_seconds',
      help: 'Time a lane took for a batch that handled at least one event (or scheduled message)',
      labelNames: ['kind', 'lane'],
      buckets: SECONDS,
      registers,
    });
    this.laneRetries = new Counter({
      name: 'lane_retries_total',
      help: 'Batches a lane retried: cause handler (its handler threw) or stall (the log or database was unreachable)',
      labelNames: ['kind', 'lane', 'cause'],
      registers,
    });
    this.laneDeadLettered = new Counter({
      name: 'lane_dead_lettered_total',
      help: 'Events (or scheduled messages) this instance moved to the dead letters',
      labelNames: ['kind', 'lane'],
      registers,
    });
    this.sseStreams = new Gauge({
      name: 'sse_streams_open',
      help: 'Server-sent event streams open on this instance',
      registers,
    });
    this.turns = new Counter({
      name: 'agent_turns_total',
      help: 'Agent turns ended, by status (completed, awaiting_hitl, error) and tenant (bounded: see docs)',
      labelNames: ['status', 'tenant'],
      registers,
    });
    this.modelTokens = new Counter({
      name: 'model_tokens_total',
      help: 'Model tokens providers reported, by model, provider, direction (input, output) and tenant',
      labelNames: ['model', 'provider', 'direction', 'tenant'],
      registers,
    });
    this.modelCost = new Counter({
      name: 'model_cost_usd_total',
      help: 'Model cost in US dollars at list price, by model, provider and tenant',
      labelNames: ['model', 'provider', 'tenant'],
      registers,
    });
    const budgets = () => this.budgets?.().catch(() => []) ?? Promise.resolve([]);
    const tenantOf = (tenantId: string) => this.tenant(tenantId);
    this.tenantBudgetUsed = new Gauge({
      name: 'tenant_daily_budget_used_ratio',
      help: "Share of a tenant's daily cap used today (settled turns), by cap (tokens, cost); tenants without a cap are absent",
      labelNames: ['tenant', 'cap'],
      registers,
      async collect() {
        this.reset();
        // Tenants folded into `other` show the highest share among them: the alert still fires.
        const highest = new Map<string, { tenant: string; cap: string; ratio: number }>();
        for (const use of await budgets()) {
          const tenant = tenantOf(use.tenantId);
          const key = `${tenant}\u0000${use.cap}`;
          if ((highest.get(key)?.ratio ?? -1) < use.ratio) highest.set(key, { tenant, cap: use.cap, ratio: use.ratio });
        }
        for (const { tenant, cap, ratio } of highest.values()) this.set({ tenant, cap }, ratio);
      },
    });
    this.complianceRunDuration = new Histogram({
      name: 'compliance_run_duration_seconds',
      help: 'Compliance assessments by scope (portfolio, entity) and status (complete, partial, failed)',
      labelNames: ['scope', 'status'],
      buckets: LONG_SECONDS,
      registers,
    });
    this.complianceEntities = new Counter({
      name: 'compliance_entities_assessed_total',
      help: 'Entities compliance assessments evaluated, by scope',
      labelNames: ['scope'],
      registers,
    });
    this.complianceCells = new Counter({
      name: 'compliance_cells_total',
      help: 'Verdict cells compliance assessments evaluated, by colour',
      labelNames: ['color'],
      registers,
    });
    this.importRows = new Counter({
      name: 'import_rows_total',
      help: 'Rows of imports, by kind of import and outcome (accepted, rejected)',
      labelNames: ['kind', 'outcome'],
      registers,
    });

    const scrape = () => this.readRuntime();
    new Gauge({
      name: 'lane_lag_events',
      help: 'Events a lane handles between its position and the head of the log (scheduler: messages due)',
      labelNames: ['kind', 'lane'],
      registers,
      async collect() {
        this.reset();
        for (const lane of (await scrape())?.lanes ?? [])
          this.set({ kind: lane.kind, lane: lane.lane }, lane.lagEvents);
      },
    });
    new Gauge({
      name: 'lane_lag_seconds',
      help: "Age of a lane's oldest pending event (scheduler: how long the oldest due message has waited); 0 when none",
      labelNames: ['kind', 'lane'],
      registers,
      async collect() {
        this.reset();
        for (const lane of (await scrape())?.lanes ?? [])
          this.set({ kind: lane.kind, lane: lane.lane }, lane.lagSeconds);
      },
    });
    new Gauge({
      name: 'lane_dead_letters',
      help: 'Unresolved dead letters of a lane (shared table: every instance reports the same)',
      labelNames: ['kind', 'lane'],
      registers,
      async collect() {
        this.reset();
        for (const lane of (await scrape())?.lanes ?? [])
          this.set({ kind: lane.kind, lane: lane.lane }, lane.deadLetters);
      },
    });
    new Gauge({
      name: 'lane_subscription_up',
      help: "1 while a kind's wake-up subscription to the log is up, 0 while it is down (its lanes poll)",
      labelNames: ['kind'],
      registers,
      async collect() {
        this.reset();
        for (const kind of (await scrape())?.kinds ?? [])
          if (kind.subscribed !== null) this.set({ kind: kind.kind }, kind.subscribed ? 1 : 0);
      },
    });
    new Gauge({
      name: 'lane_leader',
      help: '1 when this instance leads the lanes of a kind; summed over instances, exactly 1 is healthy',
      labelNames: ['kind'],
      registers,
      async collect() {
        this.reset();
        for (const kind of (await scrape())?.kinds ?? []) this.set({ kind: kind.kind }, kind.leader ? 1 : 0);
      },
    });
    new Gauge({
      name: 'scheduled_messages_due',
      help: 'Scheduled messages whose time has come and that have not fired (dead-lettered ones excluded)',
      registers,
      async collect() {
        const snapshot = await scrape();
        if (snapshot) this.set(snapshot.scheduled.due);
      },
    });
    new Gauge({
      name: 'scheduled_messages_overdue',
      help: 'Scheduled messages due for longer than LANE_LAG_DEGRADED_S (60 s by default) and still not fired',
      registers,
      async collect() {
        const snapshot = await scrape();
        if (snapshot) this.set(snapshot.scheduled.overdue);
      },
    });
    new Gauge({
      name: 'db_pool_connections_in_use',
      help: 'Database connections checked out, by pool (events: the event store; read_models: knex)',
      labelNames: ['pool'],
      registers,
      async collect() {
        this.reset();
        for (const pool of (await scrape())?.pools ?? []) this.set({ pool: pool.pool }, pool.inUse);
      },
    });
    new Gauge({
      name: 'db_pool_waiting',
      help: 'Requests waiting for a database connection, by pool',
      labelNames: ['pool'],
      registers,
      async collect() {
        this.reset();
        for (const pool of (await scrape())?.pools ?? []) this.set({ pool: pool.pool }, pool.waiting);
      },
    });
  }

  /** The runtime's report, read once per scrape (every gauge above asks; they share one read). */
  observeRuntime(source: () => Promise<RuntimeSnapshot>): void {
    this.runtime = source;
  }

  /** Each tenant's share of its daily caps, read at scrape time (the agents context offers it). */
  observeBudgets(source: () => Promise<BudgetUse[]>): void {
    this.budgets = source;
  }

  private readRuntime(): Promise<RuntimeSnapshot | null> {
    const source = this.runtime;
    if (!source) return Promise.resolve(null);
    const now = Date.now();
    // One scrape asks within milliseconds; a report older than this is another scrape's.
    if (!this.snapshot || now - this.snapshot.at > 250) this.snapshot = { at: now, value: source().catch(() => null) };
    return this.snapshot.value;
  }

  /** A tenant's label: its id while fewer than the configured cap have one, else `other`. */
  tenant(tenantId: string): string {
    return this.tenants.of(tenantId);
  }

  /** A model's label and its provider (the id's prefix: `openai/gpt-4o` → `openai`). */
  model(modelId: string): { model: string; provider: string } {
    const model = this.models.of(modelId);
    const slash = modelId.indexOf('/');
    return { model, provider: model === OTHER ? OTHER : slash > 0 ? modelId.slice(0, slash) : 'unknown' };
  }

  /** Context meters of appended events (`ContextModule.meters`). */
  addEventMeters(meters: readonly EventMeter[]): void {
    for (const meter of meters)
      for (const type of meter.types) this.meters.set(type, [...(this.meters.get(type) ?? []), meter]);
  }

  /** Appended events to the context meters; a meter that throws loses its count, never the append. */
  observeEvents(events: ReadonlyArray<{ type: string; data: unknown; metadata: { tenantId: string } }>): void {
    if (this.meters.size === 0) return;
    for (const event of events) {
      const meters = this.meters.get(event.type);
      if (!meters) continue;
      for (const meter of meters) {
        try {
          meter.observe(event, this);
        } catch {
          // A malformed event is the event store's and the command's problem, not the scrape's.
        }
      }
    }
  }

  /** A lane handled a batch: only batches that did something, so idle polls do not flatten the histogram. */
  laneBatch(kind: LaneMetricKind, lane: string, handled: number, seconds: number): void {
    if (handled > 0) this.laneBatchDuration.observe({ kind, lane }, seconds);
  }

  laneRetry(kind: LaneMetricKind, lane: string, cause: 'handler' | 'stall'): void {
    this.laneRetries.inc({ kind, lane, cause });
  }

  laneDeadLetter(kind: LaneMetricKind, lane: string): void {
    this.laneDeadLettered.inc({ kind, lane });
  }

  /** A handler failed: retried later, or (`deadLettered`) parked. */
  laneFailed(kind: LaneMetricKind, lane: string, deadLettered: boolean): void {
    if (deadLettered) this.laneDeadLetter(kind, lane);
    else this.laneRetry(kind, lane, 'handler');
  }

  /** The Prometheus text exposition of everything above. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}

export function createPlatformMetrics(options: MetricsOptions = {}): PlatformMetrics {
  return new PlatformMetrics(options);
}
