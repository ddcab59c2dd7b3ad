import { comparePositions, type Position, type RecordedEvent } from '../eventstore/types';

/** What a lane gets from the tail: the events it handles after its position, and where it now stands. */
export interface TailSlice {
  events: RecordedEvent[];
  next: Position;
}

/**
 * The newest stretch of the global log, read once for every lane ("one wake-up
 * serves every waiter"). Before it, each of the ~25 lanes answered every append's wake-up with
 * its own head query and filtered read: ~50 queries per command, most finding nothing. Now the
 * runner's one live subscription, which reads every new event anyway, fills the tail, and lanes
 * at the head take their events from memory; a lane with nothing to do in the new stretch just
 * moves its position, with no query at all. Lanes behind the tail (catching up after a start,
 * a rebuild or a failure) read the store themselves. The tail holds every event after `start`
 * in log order, so a lane standing anywhere in it has seen exactly the events up to its position.
 */
export class LogTail {
  private start: Position;
  private events: RecordedEvent[] = [];
  /** The approximate bytes of `events`, each as `approximateSize` measured it on its way in. */
  private size = 0;
  private readonly sizes: number[] = [];

  /**
   * `maxBytes` bounds the memory it pins whatever the events' size (an import's large payloads
   * held for a lagging lane): past either bound it forgets its oldest half.
   */
  constructor(
    from: Position,
    private readonly maxEvents: number,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {
    this.start = from;
  }

  /** Bytes held (approximate: the JSON text of data and metadata). */
  get bytes(): number {
    return this.size;
  }

  get end(): Position {
    return this.events.length > 0 ? this.events[this.events.length - 1].position : this.start;
  }

  /** The subscription's next event (in log order, after `end`). */
  push(event: RecordedEvent): void {
    if (comparePositions(event.position, this.end) <= 0) return;
    const size = approximateSize(event);
    this.events.push(event);
    this.sizes.push(size);
    this.size += size;
    if (this.events.length > this.maxEvents || this.size > this.maxBytes) this.trim();
  }

  /** Forgets the oldest events until at most half of each bound is held; lanes behind `start` read the store. */
  private trim(): void {
    let drop = Math.max(0, this.events.length - Math.floor(this.maxEvents / 2));
    let kept = this.size;
    for (let i = 0; i < drop; i++) kept -= this.sizes[i];
    while (drop < this.events.length && kept > this.maxBytes / 2) kept -= this.sizes[drop++];
    this.dropFirst(drop);
  }

  private dropFirst(count: number): void {
    if (count === 0) return;
    this.start = this.events[count - 1].position;
    this.events = this.events.slice(count);
    for (const size of this.sizes.splice(0, count)) this.size -= size;
  }

  /** Forgets what every lane has passed (`slowest`: the position of the lane furthest behind). */
  release(slowest: Position): void {
    let drop = 0;
    while (drop < this.events.length && comparePositions(this.events[drop].position, slowest) <= 0) drop++;
    this.dropFirst(drop);
  }

  /**
   * The events of `types` (all when absent) after `from`, at most `limit`; null when `from`
   * lies before the tail (the lane must read the store). A lane at or past the end gets
   * nothing and stays where it is.
   */
  slice(from: Position, types: readonly string[] | undefined, limit: number): TailSlice | null {
    if (comparePositions(from, this.start) < 0) return null;
    const end = this.end;
    if (comparePositions(from, end) >= 0) return { events: [], next: from };
    let i = this.events.length;
    while (i > 0 && comparePositions(this.events[i - 1].position, from) > 0) i--;
    const wanted = types ? new Set(types) : null;
    const events: RecordedEvent[] = [];
    for (; i < this.events.length; i++) {
      const event = this.events[i];
      if (wanted && !wanted.has(event.type)) continue;
      events.push(event);
      if (events.length === limit) return { events, next: event.position };
    }
    return { events, next: end };
  }
}

/** An event's rough weight in memory: its data's and metadata's JSON text, and a fixed part for the rest. */
export function approximateSize(event: RecordedEvent): number {
  return 200 + JSON.stringify(event.data ?? null).length + JSON.stringify(event.metadata ?? null).length;
}
