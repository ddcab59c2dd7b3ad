import { EventFilter, matchesFilter, Position, RecordedEvent, Subscription } from '../types';
import type { AppendNotifier } from './notifier';

export interface PollingSubscriptionOptions {
  readAll(from: Position, limit: number): Promise<RecordedEvent[]>;
  notifier: AppendNotifier;
  from: Position;
  filter?: EventFilter;
  batchSize: number;
  pollIntervalMs: number;
}

/**
 * Catch-up then live over readAll. The checkpoint is the last position read (filtered-out
 * events advance it too). After a notification, a commit may still be hidden behind an
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
    const { readAll, notifier, filter, batchSize, pollIntervalMs } = this.options;
    let delay = 1;
    while (!this.stopped) {
      const seenBefore = notifier.seen;
      const batch = await readAll(this.checkpoint, batchSize);
      if (batch.length > 0) {
        delay = 1;
        for (const event of batch) {
          if (this.stopped) return;
          this.checkpoint = event.position;
          if (matchesFilter(event, filter)) yield event;
        }
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
