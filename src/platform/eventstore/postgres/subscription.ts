import { comparePositions, type EventFilter, type Position, type RecordedEvent, type Subscription } from '../types';
import type { AppendNotifier } from './notifier';

/** One read of the committed log, and whether committed events wait behind an older transaction still in flight. */
export interface LiveRead {
  events: RecordedEvent[];
  hidden: boolean;
}

export interface PollingSubscriptionOptions {
  readLive(from: Position, limit: number, filter?: EventFilter): Promise<LiveRead>;
  headPosition(): Promise<Position>;
  notifier: AppendNotifier;
  from: Position;
  filter?: EventFilter;
  batchSize: number;
  pollIntervalMs: number;
  gatherMs?: () => number;
}

/**
 * Catch-up then live over the committed log, with the filter applied by the database. When a
 * read comes back short, everything up to the head taken just before it has been seen, so the
 * checkpoint jumps there and a selective filter never rescans the same stretch.
 *
 * After a short read the subscription waits for the next notification: every append sends
 * one once it has committed. The exception is a commit hidden behind an older transaction
 * still in flight (a projector's, say, which appends nothing and notifies nobody): the read
 * says so, and only then does it re-read on a timer, from a few milliseconds up to the poll
 * interval. Before, every wake-up was followed by six timed re-reads whether or not anything
 * was hidden: most of a turn's reads of the log. With `gatherMs`, a wake-up is followed by a
 * short pause before the read, so under load one read serves several appends.
 */
export class PollingSubscription implements Subscription {
  private stopped = false;
  private checkpoint: Position;

  constructor(private readonly options: PollingSubscriptionOptions) {
    this.checkpoint = options.from;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.hurry();
  }

  /** Ends the current gathering, if any. */
  hurry(): void {
    this.hurried?.();
  }

  private hurried: (() => void) | null = null;

  /**
   * After a wake-up: lets more appends land before the read, for the gathering time asked (at
   * least `floorMs`), cut short by `hurry`. False when nothing is gathering (someone waits).
   */
  private async gather(floorMs = 0): Promise<boolean> {
    const gathering = this.options.gatherMs?.() ?? 0;
    if (gathering <= 0) return false;
    if (this.stopped) return true;
    const ms = Math.max(gathering, floorMs);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.hurried = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.hurried = done;
    });
    return true;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    const { readLive, headPosition, notifier, filter, batchSize, pollIntervalMs } = this.options;
    let delay = 1;
    while (!this.stopped) {
      const seenBefore = notifier.seen;
      const head = filter ? await headPosition() : null;
      const { events: batch, hidden } = await readLive(this.checkpoint, batchSize, filter);
      for (const event of batch) {
        if (this.stopped) return;
        this.checkpoint = event.position;
        yield event;
      }
      if (head && batch.length < batchSize && comparePositions(head, this.checkpoint) > 0) this.checkpoint = head;
      if (batch.length === batchSize) {
        delay = 1;
        continue;
      }
      if (notifier.seen !== seenBefore) {
        // Appended while this read ran: read again, once the burst had its moment to land.
        delay = 1;
        await this.gather();
        continue;
      }
      if (!hidden) {
        // Everything committed has been read: the next append will say so.
        delay = 1;
        await notifier.wait(pollIntervalMs);
        if (notifier.seen !== seenBefore) await this.gather();
        continue;
      }
      // An older transaction is still in flight, so what it may commit cannot be read past yet.
      // While nobody waits, look again after the gathering rather than within a millisecond:
      // under load some transaction nearly always is, and each look is a read of the log.
      if (!(await this.gather(delay))) await notifier.wait(delay);
      delay = notifier.seen !== seenBefore ? 1 : Math.min(delay * 4, pollIntervalMs);
    }
  }
}
