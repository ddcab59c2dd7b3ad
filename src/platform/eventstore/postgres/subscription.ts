import { comparePositions, EventFilter, Position, RecordedEvent, Subscription } from '../types';
import type { AppendNotifier } from './notifier';

export interface PollingSubscriptionOptions {
  readAll(from: Position, limit: number, filter?: EventFilter): Promise<RecordedEvent[]>;
  headPosition(): Promise<Position>;
  notifier: AppendNotifier;
  from: Position;
  filter?: EventFilter;
  batchSize: number;
  pollIntervalMs: number;
}

/**
 * Catch-up then live over readAll, with the filter applied by the database. When a read
 * comes back short, everything up to the head taken just before it has been seen, so the
 * checkpoint jumps there and a selective filter never rescans the same stretch. After a notification, a commit may still be hidden behind an
 * older in-flight transaction, so empty reads back off from a few milliseconds up to the
 * poll interval instead of waiting for the next notification.
 */
export class PollingSubscription implements Subscription {
  private stopped = false;
  private checkpoint: Position;

  constructor(private readonly options: PollingSubscriptionOptions) {
    this.checkpoint = options.from;
  }

  async stop(): Promise<void> {
    this.stopped = true;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    const { readAll, headPosition, notifier, filter, batchSize, pollIntervalMs } = this.options;
    let delay = 1;
    while (!this.stopped) {
      const seenBefore = notifier.seen;
      const head = filter ? await headPosition() : null;
      const batch = await readAll(this.checkpoint, batchSize, filter);
      for (const event of batch) {
        if (this.stopped) return;
        this.checkpoint = event.position;
        yield event;
      }
      if (head && batch.length < batchSize && comparePositions(head, this.checkpoint) > 0) this.checkpoint = head;
      if (batch.length > 0) {
        delay = 1;
        continue;
      }
      if (notifier.seen !== seenBefore) {
        delay = 1;
        continue;
      }
      await notifier.wait(delay);
      delay = notifier.seen !== seenBefore ? 1 : Math.min(delay * 4, pollIntervalMs);
    }
  }
}
