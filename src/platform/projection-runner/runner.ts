import type { Knex } from 'knex';
import { comparePositions, type Position, type RecordedEvent, START } from '../eventstore/types';
import { advanceCheckpoint, CHECKPOINTS_TABLE, readCheckpoint, readCheckpoints, saveCheckpoint } from './checkpoints';
import {
  type DeadLetter,
  lockOpenDeadLetter,
  openDeadLetters,
  recordDeadLetter,
  resolveDeadLetter,
  retryLetters,
  type RetryOutcome,
} from './dead-letters';
import { readAtPositions, readCommittedSince } from '../eventstore/postgres/postgres-event-store';
import { deleteInlineGaps, inlineGapLag, lockInlineGaps, lockInlineProjector } from './inline-gaps';
import { createInlineProjections } from './inline-projections';
import { transactionOnPool } from '../infra/transaction';
import {
  HandlerFailed,
  type LaneReport,
  LaneRuntime,
  type LaneRuntimeOptions,
  type LaneState,
  LeadershipLost,
  TAIL_EVENTS,
} from './lane-runtime';
import type { Projector } from './projector';
import { WakeUps } from './wake-ups';

export interface RunnerOptions extends LaneRuntimeOptions {
  projectors: Projector[];
  batchSize?: number;
  /** Bytes the shared tail may hold at most (approximate). */
  tailBytes?: number;
}

interface Lane extends LaneState {
  projector: Projector;
  /** An eventual lane's pending wake-up: new events wait for it instead of waking the lane at once. */
  paced: NodeJS.Timeout | null;
}

/**
 * How often an idle lane persists a skip over events it ignores: each save is a transaction,
 * and ~20 lanes saving every second cost more than a restart rescanning a few seconds of log.
 */
const SKIP_SAVE_MS = 5000;

/**
 * How long a lane nobody waits on lets new events gather before it applies them: an eventual
 * one (the audit index: a turn's dozen appends were a dozen audit transactions), and one that
 * takes some types as eventual (the compliance dashboard, under a burst of single well
 * creations: a batch of ~8 per wake-up, each a handful of statements). One transaction per
 * this interval replaces one per wake-up. Whoever waits hurries the lane (`catchUp`, and
 * `waitFor` for the types it does not take as eventual), so nobody waits this long.
 */
const EVENTUAL_PACE_MS = 150;

/** The checkpoint status of an inline projector: the store applies it, no lane runs it. */
export const INLINE_STATUS = 'inline';

export interface RebuildProgress {
  applied: number;
  position: Position;
}

/**
 * Runs projectors (docs/runtime.md): each lane reads the log in batches and applies a batch
 * and its checkpoint in one transaction, so a crash anywhere leaves read model and checkpoint
 * in agreement. One live subscription only wakes the lanes and fills the tail they share at
 * the head of the log; a lane behind it, or any lane while it is down, reads the store.
 */
export class ProjectionRunner extends LaneRuntime<Lane> {
  private readonly waiters = new Set<() => void>();
  private readonly batchSize: number;

  constructor(private readonly options: RunnerOptions) {
    const tail = { tailEvents: Math.max(TAIL_EVENTS, (options.batchSize ?? 1000) * 2), tailBytes: options.tailBytes };
    super('projection', { ...options, wakeUps: options.wakeUps ?? new WakeUps({ ...options, ...tail }) });
    this.batchSize = options.batchSize ?? 1000;
    const names = new Set<string>();
    for (const projector of options.projectors) {
      if (names.has(projector.name)) throw new Error(`two projectors are named ${projector.name}`);
      names.add(projector.name);
    }
    // Inline only where the store can share its append transaction; elsewhere a lane as usual.
    const inlineCapable = typeof options.store.useInlineProjections === 'function';
    this.inline = new Set(
      options.projectors.filter((p) => inlineCapable && p.consistency === 'inline').map((p) => p.name),
    );
  }

  /** Projectors the store applies in its append transaction: no lane, nobody waits for them. */
  private readonly inline: Set<string>;

  private isInline(projector: Projector): boolean {
    return this.inline.has(projector.name);
  }

  /** Inline projectors handed to the store: from then on every append applies them. */
  private readonly attached = new Set<string>();

  /** Whether the store has been handed this runner's inline projections at all. */
  private handed = false;

  /**
   * Hands the inline projectors whose tables stand at this build's version to the store. One
   * whose stored version differs (the leader has not created its tables yet, or another version
   * of the platform runs it) is not attached: its appends would write tables of another shape.
   * The store records its events as gaps instead, which the leader applies (`drainGaps`).
   */
  private async attachInline(): Promise<void> {
    if (this.inline.size === 0) return;
    const stored = new Map((await readCheckpoints(this.options.knex)).map((row) => [row.name, row.version]));
    const ready = this.options.projectors.filter((p) => this.isInline(p) && stored.get(p.name) === p.version);
    if (this.handed && ready.every((p) => this.attached.has(p.name)) && ready.length === this.attached.size) return;
    // Exactly those: one whose tables another version rebuilt since goes back to gaps.
    this.attached.clear();
    for (const p of ready) this.attached.add(p.name);
    const deferred = this.options.projectors.filter((p) => this.isInline(p) && !this.attached.has(p.name));
    if (deferred.length > 0)
      this.options.logger.warn(
        { projectors: deferred.map((p) => p.name) },
        'inline projectors not attached: their tables are missing or of another version; their events are left to the leader',
      );
    this.options.store.useInlineProjections!(
      createInlineProjections(
        this.options.knex,
        this.options.projectors.filter((p) => this.attached.has(p.name)),
        deferred,
      ),
    );
    this.handed = true;
  }

  /** The leader's pass over the inline projectors' gaps: every `idleMs` while it leads. */
  private draining: NodeJS.Timeout | null = null;
  private drainRunning: Promise<void> | null = null;

  private startDraining(): void {
    if (this.draining || this.inline.size === 0) return;
    this.draining = setInterval(() => {
      if (this.drainRunning || !this.leader) return;
      this.drainRunning = this.drainAllGaps()
        .catch((err) => this.options.logger.warn({ err }, 'inline projection gaps not drained; retried'))
        .finally(() => (this.drainRunning = null));
    }, this.idleMs);
    this.draining.unref();
  }

  private async stopDraining(): Promise<void> {
    if (this.draining) clearInterval(this.draining);
    this.draining = null;
    await this.drainRunning;
  }

  private async drainAllGaps(): Promise<void> {
    for (const projector of this.options.projectors)
      if (this.attached.has(projector.name)) while ((await this.drainGaps(projector)) === this.batchSize);
  }

  /**
   * Applies the oldest gaps of an inline projector this instance runs at its tables' version,
   * in log order, and deletes them, in one transaction under its checkpoint's row lock (one
   * drainer at a time, and none during a rebuild's swap). An event the projector cannot apply
   * goes to the dead letters, as a lane's would. Answers how many gaps it closed.
   */
  async drainGaps(projector: Projector): Promise<number> {
    const { knex, logger } = this.options;
    return transactionOnPool(knex, async (trx) => {
      const checkpoint = await trx(CHECKPOINTS_TABLE).where({ name: projector.name }).forUpdate().first();
      // Another version stands now (a newer instance rebuilt it): its runner drains.
      if (!checkpoint || checkpoint.version !== projector.version) return 0;
      if (!this.fenceOpen()) throw new LeadershipLost("the projector lock's session is gone");
      const positions = await lockInlineGaps(trx, projector.name, this.batchSize);
      if (positions.length === 0) return 0;
      const events = await readAtPositions(trx, positions);
      const applyAll = async (inner: Knex.Transaction, batch: RecordedEvent[]) => {
        if (projector.applyBatch) await projector.applyBatch(inner, batch);
        else for (const event of batch) await projector.apply(inner, event);
      };
      try {
        await trx.transaction((batch) => applyAll(batch, events));
      } catch {
        for (const event of events) {
          try {
            await trx.transaction((one) => applyAll(one, [event]));
          } catch (error) {
            await recordDeadLetter(trx, projector.name, event, error, 1);
            logger.error(
              { err: error, projector: projector.name, eventId: event.id, type: event.type, stream: event.stream },
              'inline projector cannot apply this event: moved to the dead-letter table',
            );
          }
        }
      }
      await deleteInlineGaps(trx, projector.name, positions);
      return positions.length;
    });
  }

  /** True once every lane has reached the head of the log at least once. */
  get caughtUp(): boolean {
    if (!this.leader) return this.followerCaughtUp;
    return [...this.lanes.values()].every((lane) => lane.caughtUp);
  }

  private followerCaughtUp = false;

  async start(): Promise<void> {
    // Until its tables are known to stand at this build's version, an inline projector's events
    // are recorded as gaps: none is lost while this instance prepares or rebuilds it.
    if (this.inline.size > 0 && !this.handed) {
      const inline = this.options.projectors.filter((p) => this.isInline(p));
      this.options.store.useInlineProjections!(createInlineProjections(this.options.knex, [], inline));
      this.handed = true;
    }
    await this.startLeading();
    if (!this.leader) {
      this.options.logger.info('another instance runs the projectors; this one waits on their checkpoints');
      // The leader creates and rebuilds inline read models; this instance's appends write them.
      await this.attachInline().catch((err) => this.options.logger.warn({ err }, 'inline projectors not attached yet'));
      this.followerCaughtUp = true;
      // A follower that started before the leader created an inline projector's tables attaches it once they exist.
      this.attaching = setInterval(() => void this.attachInline().catch(() => undefined), 2000);
      this.attaching.unref();
    }
  }

  private attaching: NodeJS.Timeout | null = null;

  protected async prepareLanes(): Promise<Lane[]> {
    for (const projector of this.options.projectors.filter((p) => this.isInline(p)))
      await this.prepareInline(projector);
    await this.attachInline();
    const lanes: Lane[] = [];
    for (const projector of this.options.projectors.filter((p) => !this.isInline(p))) {
      const position = await this.prepare(projector);
      if (!position) continue;
      lanes.push({
        name: projector.name,
        checkpoint: projector.name,
        version: projector.version,
        eventTypes: projector.eventTypes,
        projector,
        position,
        saved: position,
        caughtUp: false,
        wake: () => undefined,
        failures: 0,
        stalls: 0,
        savedAt: 0,
        paced: null,
      });
    }
    return lanes;
  }

  protected onLead(): void {
    this.startDraining();
  }

  protected onRelinquish(): void {
    this.followerCaughtUp = true;
    void this.stopDraining();
  }

  protected urgent(): boolean {
    return this.waiters.size > 0 || this.waitedOn.size > 0;
  }

  protected pushed(): void {
    this.releaseTail();
  }

  protected laneSpecs() {
    return this.options.projectors
      .filter((p) => !this.isInline(p))
      .map((p) => ({ name: p.name, checkpoint: p.name, eventTypes: p.eventTypes }));
  }

  /**
   * The lanes, and every inline projector of this build with gaps left to apply: its lag is
   * theirs (how many, and the age of the oldest), so `/health` names it once they wait longer
   * than the lag bound (no leader runs it at its tables' version).
   */
  async lanesReport(): Promise<LaneReport[]> {
    const inline = [...this.inline];
    const [lanes, gaps] = await Promise.all([
      super.lanesReport(),
      inline.length > 0 ? inlineGapLag(this.options.knex, inline) : [],
    ]);
    const now = Date.now();
    return [
      ...lanes,
      ...gaps.map((gap) => ({
        name: gap.projector,
        kind: this.kind,
        lag_events: gap.events,
        lag_seconds: Math.max(0, Math.round((now - new Date(gap.oldest).getTime()) / 100) / 10),
        subscribed: null,
        failures: 0,
      })),
    ];
  }

  protected restMs(lane: Lane, applied: number): number {
    if (applied === 0) {
      lane.caughtUp = true;
      return this.idleMs;
    }
    // Caught up with what had gathered: the next batch waits for the pace (or a reader), even
    // while new events keep arriving.
    if (this.paced(lane) && applied < this.batchSize) return this.idleMs;
    return 0;
  }

  protected moved(): void {
    this.notifyWaiters();
  }

  /**
   * Creates tables on first sight and rebuilds from zero when the version changed. A stored
   * version newer than this build's is left alone (null: no lane): during a rolling deploy an
   * older instance that takes the lead must not drop the newer version's tables, and the newer
   * one would drop them again when it leads (a reset flip-flop).
   */
  private async prepare(projector: Projector): Promise<Position | null> {
    const stored = await readCheckpoint(this.options.knex, projector.name);
    if (stored && stored.version === projector.version) return stored.position;
    if (stored && stored.version > projector.version) {
      this.options.logger.warn(
        { projector: projector.name, stored: stored.version, ours: projector.version },
        'a newer version of this projector runs elsewhere: this instance leaves it alone',
      );
      return null;
    }
    if (stored) {
      this.options.logger.warn(
        { projector: projector.name, from: stored.version, to: projector.version },
        'projector version changed: rebuilding',
      );
    }
    await this.reset(projector);
    return START;
  }

  /**
   * An inline projector has no lane: its tables are created on first sight and, when its
   * version changed or the log already holds its events, rebuilt from the log while the store
   * applies new appends to the live tables (the swap takes their lock, see `rebuild`).
   */
  private async prepareInline(projector: Projector): Promise<void> {
    const stored = await readCheckpoint(this.options.knex, projector.name);
    if (stored && stored.version >= projector.version) return;
    if (stored)
      this.options.logger.warn(
        { projector: projector.name, from: stored.version, to: projector.version },
        'inline projector version changed: rebuilding',
      );
    if (!stored) await this.reset(projector);
    const filter = projector.eventTypes ? { eventTypes: [...projector.eventTypes] } : undefined;
    const [any] = await this.options.store.readAll({ limit: 1, filter });
    if (stored || any) await this.rebuild(projector.name);
    // Its checkpoint says only where its last rebuild ended (here, the head it was created at)
    // and, as its status, that appends apply it.
    else
      await saveCheckpoint(this.options.knex, projector.name, {
        version: projector.version,
        position: await this.options.store.headPosition(),
        reset: true,
        status: INLINE_STATUS,
      });
  }

  private async reset(projector: Projector): Promise<void> {
    await this.options.knex.transaction(async (trx) => {
      for (const table of projector.tables) await trx.schema.dropTableIfExists(table);
      await projector.createTables(trx);
      await saveCheckpoint(trx, projector.name, { version: projector.version, position: START, reset: true });
    });
  }

  /**
   * Every lane reads each page, whatever its types: one that handles none of them moves its
   * position across the page in memory, which lets the shared tail forget it.
   */
  protected wakesFor(): boolean {
    return true;
  }

  /** A lane that may gather events for `EVENTUAL_PACE_MS`: commands never wait on it, or wait only for some of its types. */
  private paceable(projector: Projector): boolean {
    return projector.consistency === 'eventual' || (projector.eventualFor?.length ?? 0) > 0;
  }

  /** A paceable lane nobody waits on: it gathers events for `EVENTUAL_PACE_MS`. */
  private paced(lane: Lane): boolean {
    return this.paceable(lane.projector) && !this.waitedOn.has(lane.projector.name);
  }

  /**
   * Marks paceable lanes as waited on (they stop gathering) and wakes them; answers the
   * release. Only paceable lanes are counted: the others never gather.
   */
  private waitOn(names: Iterable<string>): () => void {
    const held: string[] = [];
    for (const name of names) {
      const lane = this.lanes.get(name);
      if (!lane || !this.paceable(lane.projector)) continue;
      held.push(name);
      this.waitedOn.set(name, (this.waitedOn.get(name) ?? 0) + 1);
      this.hurry(lane);
    }
    return () => {
      for (const name of held) {
        const left = this.waitedOn.get(name)! - 1;
        if (left === 0) this.waitedOn.delete(name);
        else this.waitedOn.set(name, left);
      }
    };
  }

  /** Paceable lanes someone waits on (a command in `waitFor`, a reader in `catchUp`), and how many. */
  private readonly waitedOn = new Map<string, number>();

  /** A lane others wait for wakes at once; a paced one within `EVENTUAL_PACE_MS`. */
  protected wakeForNewEvents(lane: Lane): void {
    if (!this.paced(lane)) return this.hurry(lane);
    if (lane.paced) return;
    lane.paced = setTimeout(() => this.hurry(lane), EVENTUAL_PACE_MS);
    lane.paced.unref();
  }

  protected hurry(lane: Lane): void {
    if (lane.paced) clearTimeout(lane.paced);
    lane.paced = null;
    lane.wake();
  }

  /** Lets the tail forget what every lane has passed. */
  private releaseTail(): void {
    let slowest: Position | null = null;
    for (const lane of this.lanes.values())
      if (!slowest || comparePositions(lane.position, slowest) < 0) slowest = lane.position;
    if (slowest) this.wakeUps.tail?.release(slowest);
  }

  /**
   * After a failure the lane reads one event at a time, so the event that keeps failing is
   * known; once it has failed `deadLetterAfter` times it is recorded as a dead letter and the
   * checkpoint moves past it in the same transaction.
   */
  protected async deadLetter(lane: Lane, event: RecordedEvent, error: unknown): Promise<void> {
    const { projector } = lane;
    await transactionOnPool(this.options.knex, async (trx) => {
      await advanceCheckpoint(trx, projector.name, {
        version: projector.version,
        from: lane.saved,
        to: event.position,
        applied: 0,
      });
      await recordDeadLetter(trx, projector.name, event, error, lane.failures);
    });
  }

  /**
   * Reads and applies one batch of the events the projector wants; returns how many. At the
   * head of the log the batch comes from the shared tail; behind it, the database filters by
   * type, and when the read comes back short the lane has seen the log up to the head taken
   * just before it, so its checkpoint moves there even if nothing matched.
   */
  protected async step(lane: Lane): Promise<number> {
    const { knex } = this.options;
    const { projector } = lane;
    const filter = projector.eventTypes ? { eventTypes: [...projector.eventTypes] } : undefined;
    const limit = lane.failures > 0 ? 1 : this.batchSize;
    const { events, next } =
      this.wakeUps.tail?.slice(lane.position, projector.eventTypes, limit) ??
      (await this.readStore(lane.position, limit, filter));
    if (!this.fenceOpen()) throw new LeadershipLost("the projector lock's session is gone");
    if (events.length > 0) {
      await this.inBatch(lane, events, () => this.applyBatch(projector, events, lane.saved, next));
      lane.failures = 0;
      lane.stalls = 0;
      lane.saved = next;
      lane.savedAt = Date.now();
    } else if (comparePositions(next, lane.saved) > 0 && Date.now() - lane.savedAt > SKIP_SAVE_MS) {
      // Nothing to apply: persist the skip now and then, so a restart does not rescan it.
      // One compare-and-set statement: nothing to bracket in a transaction of its own.
      await advanceCheckpoint(knex, projector.name, {
        version: projector.version,
        from: lane.saved,
        to: next,
        applied: 0,
      });
      lane.saved = next;
      lane.savedAt = Date.now();
    }
    const moved = comparePositions(next, lane.position) > 0;
    lane.position = next;
    if (moved) this.notifyWaiters();
    return events.length;
  }

  /** A lane behind the tail reads the log itself, filtered by the database. */
  private async readStore(
    from: Position,
    limit: number,
    filter: { eventTypes: string[] } | undefined,
  ): Promise<{ events: RecordedEvent[]; next: Position }> {
    const { store } = this.options;
    const head = filter ? await store.headPosition() : null;
    const events = await store.readAll({ from, limit, filter });
    let next = events.length > 0 ? events[events.length - 1].position : from;
    if (head && events.length < limit && comparePositions(head, next) > 0) next = head;
    return { events, next };
  }

  /** A lane may apply only while its instance's lock session lives. */
  private fenceOpen(): boolean {
    return this.options.leaderLock.isHeld();
  }

  private async applyBatch(projector: Projector, events: RecordedEvent[], from: Position, to: Position): Promise<void> {
    // Read models are rebuildable and the checkpoint commits with them, so a lost tail after a
    // crash is simply re-applied: no need to wait for the WAL flush.
    await transactionOnPool(
      this.options.knex,
      async (trx) => {
        // First: the compare-and-set takes the checkpoint's row lock, fencing a stale leader.
        await advanceCheckpoint(trx, projector.name, { version: projector.version, from, to, applied: events.length });
        try {
          if (projector.applyBatch) await projector.applyBatch(trx, events);
          else for (const event of events) await projector.apply(trx, event);
        } catch (error) {
          throw new HandlerFailed(events, error);
        }
      },
      { synchronous_commit: 'off' },
    );
  }

  /**
   * `ops projections retry <name>`: applies each unresolved dead letter of a projector again
   * (after a fix), each in its own transaction, and marks it resolved; one that still fails
   * stays listed. Answers how many were resolved and how many remain.
   */
  async retryDeadLetters(name: string): Promise<{ resolved: number; remaining: number }> {
    if (!this.options.projectors.some((p) => p.name === name)) throw new Error(`no projector named ${name}`);
    const { resolved, remaining } = await this.retryLetters(await openDeadLetters(this.options.knex, name));
    return { resolved, remaining };
  }

  /** Applies these dead letters again, each with its resolution in one transaction (dead-letters.ts `retryLetters`). */
  retryLetters(letters: DeadLetter[]): Promise<RetryOutcome> {
    const { knex, store, logger } = this.options;
    return retryLetters(store, logger, letters, async (event, letter) => {
      const projector = this.options.projectors.find((p) => p.name === letter.projector);
      if (!projector) throw new Error(`no projector named ${letter.projector} in this build`);
      return transactionOnPool(knex, async (trx) => {
        // The row lock first: two retries at once apply the event once.
        if (!(await lockOpenDeadLetter(trx, letter.id))) return false;
        if (projector.applyBatch) await projector.applyBatch(trx, [event]);
        else await projector.apply(trx, event);
        return resolveDeadLetter(trx, letter.id);
      });
    });
  }

  private notifyWaiters(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /**
   * Resolves true once every projector has applied `position` (read-your-writes after a
   * command), false when `timeoutMs` passes first.
   */
  async waitFor(position: Position, timeoutMs: number, eventTypes?: readonly string[]): Promise<boolean> {
    // A stuck projector elsewhere never delays a command that wrote nothing it reads, and
    // an eventual one (the audit index) never delays a command at all, nor one that wrote
    // only types a projector takes as eventual.
    const waitedFor = (type: string, projector: Projector) =>
      (!projector.eventTypes || projector.eventTypes.includes(type)) && !projector.eventualFor?.includes(type);
    const concerned = (projector: Projector) =>
      projector.consistency !== 'eventual' &&
      !this.isInline(projector) &&
      (!eventTypes ? true : eventTypes.some((t) => waitedFor(t, projector)));
    return this.waitUntil(position, timeoutMs, concerned);
  }

  /**
   * For the readers of an eventual projector: resolves true once it holds everything in the
   * log now, false when `timeoutMs` passes first.
   */
  async catchUp(name: string, timeoutMs: number): Promise<boolean> {
    // While someone waits, the lane is not paced: events the wake-up subscription has yet to
    // deliver wake it at once too.
    const release = this.waitOn([name]);
    try {
      this.wakeUps.hurry();
      return await this.waitUntil(
        await this.options.store.headPosition(),
        timeoutMs,
        (projector) => projector.name === name,
      );
    } finally {
      release();
    }
  }

  private async waitUntil(
    position: Position,
    timeoutMs: number,
    concerned: (projector: Projector) => boolean,
  ): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    if (!this.leader) {
      const lanes = this.options.projectors
        .filter(concerned)
        .map((p) => ({ checkpoint: p.name, eventTypes: p.eventTypes }));
      while (Date.now() < deadline) {
        if (await this.storedReached(position, lanes)) return true;
        await new Promise((r) => setTimeout(r, 25));
      }
      return false;
    }
    // Every lane move runs every waiter's check: decide once which projectors it waits for.
    const waitedFor = new Set(this.options.projectors.filter(concerned).map((p) => p.name));
    const reachedNow = () => {
      for (const lane of this.lanes.values())
        if (waitedFor.has(lane.projector.name) && comparePositions(lane.position, position) < 0) return false;
      return true;
    };
    if (reachedNow()) return true;
    const release = this.waitOn(waitedFor);
    return new Promise((resolve) => {
      const check = () => {
        if (reachedNow()) finish(true);
      };
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        release();
        resolve(value);
      };
      const timer = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
      this.waiters.add(check);
      this.wakeUps.hurry();
    });
  }

  /**
   * Rebuilds one projector without downtime (`ops projections rebuild`): its tables are
   * filled in a shadow schema from the whole log while reads keep answering from the live
   * tables, then one transaction holds the checkpoint row (so the live lane, wherever it
   * runs, cannot commit meanwhile), applies what arrived since, swaps the shadow tables in
   * and moves the checkpoint forward. The live lane's next batch then finds the checkpoint
   * moved and carries on from it. Needs no leadership: it writes only its own shadow.
   */
  async rebuild(name: string, onProgress?: (p: RebuildProgress) => void): Promise<RebuildProgress> {
    const projector = this.options.projectors.find((p) => p.name === name);
    if (!projector) throw new Error(`no projector named ${name}`);
    const { knex, store } = this.options;
    const live = String((await knex.raw('SELECT current_schema() AS s')).rows[0].s);
    const shadow = `rebuild_${name.replace(/[^a-z0-9_]/gi, '_').slice(0, 40)}_${Date.now().toString(36)}`;
    const inShadow = async (trx: Knex.Transaction) => trx.raw('SET LOCAL search_path TO ??, ??', [shadow, live]);
    const filter = projector.eventTypes ? { eventTypes: [...projector.eventTypes] } : undefined;
    await knex.raw('CREATE SCHEMA ??', [shadow]);
    let position: Position = START;
    let applied = 0;
    const applyAll = async (trx: Knex.Transaction, events: RecordedEvent[]) => {
      if (projector.applyBatch) await projector.applyBatch(trx, events);
      else for (const event of events) await projector.apply(trx, event);
    };
    // An inline projector has no lane to park an event it cannot apply: its rebuild does, the
    // same way (a savepoint per batch, then per event; the failing one goes to the dead letters).
    const applyInto = async (trx: Knex.Transaction, events: RecordedEvent[]) => {
      if (!this.isInline(projector)) return applyAll(trx, events);
      try {
        await trx.transaction((batch) => applyAll(batch, events));
      } catch {
        for (const event of events) {
          try {
            await trx.transaction((one) => applyAll(one, [event]));
          } catch (error) {
            await recordDeadLetter(trx, name, event, error, 1);
            this.options.logger.error(
              { err: error, projector: name, eventId: event.id, type: event.type, stream: event.stream },
              'inline projector cannot apply this event: moved to the dead-letter table',
            );
          }
        }
      }
    };
    try {
      await knex.transaction(async (trx) => {
        await inShadow(trx);
        await projector.createTables(trx);
      });
      for (;;) {
        const events = await store.readAll({ from: position, limit: this.batchSize, filter });
        if (events.length === 0) break;
        await knex.transaction(async (trx) => {
          await trx.raw('SET LOCAL synchronous_commit = off');
          await inShadow(trx);
          await applyInto(trx, events);
        });
        position = events[events.length - 1].position;
        applied += events.length;
        onProgress?.({ applied, position });
      }
      const inline = this.isInline(projector);
      await knex.transaction(async (trx) => {
        await trx(CHECKPOINTS_TABLE).where({ name }).forUpdate().first();
        // Inline: appends write the live tables themselves. Holding their lock, every event
        // committed so far is readable and every writer still in flight waits, then applies
        // its own events to the swapped-in tables: nothing is skipped or applied twice. The
        // projector's own lock first (appenders take it before the tables): no appender is
        // then half-way, so every gap recorded so far is of an event this read includes.
        if (inline) {
          await lockInlineProjector(trx, name);
          for (const table of projector.tables) await trx.raw('LOCK TABLE ??.?? IN EXCLUSIVE MODE', [live, table]);
          await deleteInlineGaps(trx, name);
        }
        await inShadow(trx);
        // The head before the final read: an event committed after it is read by the live
        // lane from the moved checkpoint; taken after the read, it would be skipped for good.
        const head = await store.headPosition();
        for (;;) {
          const events = inline
            ? await readCommittedSince(trx, position, projector.eventTypes, this.batchSize)
            : await store.readAll({ from: position, limit: this.batchSize, filter });
          if (events.length === 0) break;
          await applyInto(trx, events);
          position = events[events.length - 1].position;
          applied += events.length;
        }
        // Past every event the filter skipped too, so the live lane does not rescan them.
        if (comparePositions(head, position) > 0) position = head;
        for (const table of projector.tables) {
          await trx.raw('DROP TABLE IF EXISTS ??.?? CASCADE', [live, table]);
          await trx.raw('ALTER TABLE ??.?? SET SCHEMA ??', [shadow, table, live]);
        }
        await saveCheckpoint(trx, name, {
          version: projector.version,
          position,
          applied,
          reset: true,
          status: inline ? INLINE_STATUS : undefined,
        });
      });
      onProgress?.({ applied, position });
      for (const lane of this.lanes.values()) if (lane.projector.name === name) lane.wake();
      return { applied, position };
    } finally {
      await knex.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [shadow]);
    }
  }

  async stop(): Promise<void> {
    if (this.attaching) clearInterval(this.attaching);
    await this.stopDraining();
    for (const lane of this.lanes.values()) this.hurry(lane);
    await this.stopLeading();
    this.notifyWaiters();
  }
}
