import { expect } from 'chai';
import type { Position, RecordedEvent } from '../../../src/platform/eventstore/types';
import { LogTail } from '../../../src/platform/projection-runner/log-tail';

const at = (n: number): Position => ({ commit: 100n, prepare: BigInt(n) });
const event = (n: number, type: string): RecordedEvent => ({
  id: `e${n}`,
  stream: 's',
  revision: BigInt(n),
  position: at(n),
  type,
  data: {},
  metadata: {} as never,
  recordedAt: new Date(0),
});

describe('log tail (the newest stretch of the log, shared by the projection lanes)', () => {
  const filled = (max = 100) => {
    const tail = new LogTail(at(10), max);
    [event(11, 'A'), event(12, 'B'), event(13, 'A'), event(14, 'C')].forEach((e) => tail.push(e));
    return tail;
  };

  it('a lane inside the tail gets only its types after its position, and stands at the end when the batch is short', () => {
    const slice = filled().slice(at(11), ['A'], 10)!;
    expect(slice.events.map((e) => e.id)).to.deep.equal(['e13']);
    expect(slice.next).to.deep.equal(at(14));
  });

  it('a full batch stops at its last event, so the rest comes in the next step', () => {
    const slice = filled().slice(at(10), undefined, 2)!;
    expect(slice.events.map((e) => e.id)).to.deep.equal(['e11', 'e12']);
    expect(slice.next).to.deep.equal(at(12));
  });

  it('a lane with nothing to do in the new stretch moves to its end without reading the store', () => {
    expect(filled().slice(at(12), ['Z'], 10)).to.deep.equal({ events: [], next: at(14) });
  });

  it('a lane before the tail must read the store; one at or past its end has nothing yet', () => {
    const tail = filled();
    expect(tail.slice(at(9), ['A'], 10)).to.equal(null);
    expect(tail.slice(at(20), ['A'], 10)).to.deep.equal({ events: [], next: at(20) });
  });

  it('forgets what every lane has passed, and its oldest events past its size, sending the lanes behind to the store', () => {
    const tail = filled();
    tail.release(at(12));
    expect(tail.slice(at(11), ['A'], 10)).to.equal(null);
    expect(tail.slice(at(12), ['A'], 10)!.events.map((e) => e.id)).to.deep.equal(['e13']);
    const small = filled(2);
    expect(small.slice(at(11), undefined, 10)).to.equal(null);
    expect(small.slice(at(12), undefined, 10)!.events.map((e) => e.id)).to.deep.equal(['e13', 'e14']);
  });

  it('ignores an event it already holds (a subscription replaying its last batch)', () => {
    const tail = filled();
    tail.push(event(13, 'A'));
    expect(tail.slice(at(10), ['A'], 10)!.events.map((e) => e.id)).to.deep.equal(['e11', 'e13']);
  });

  it("holds at most its byte bound whatever the events' size: large events push the oldest out, and the lanes behind read the store", () => {
    const big = (n: number): RecordedEvent => ({ ...event(n, 'A'), data: { blob: 'x'.repeat(100_000) } });
    const tail = new LogTail(at(0), 2000, 1_000_000);
    for (let n = 1; n <= 50; n++) tail.push(big(n));
    expect(tail.bytes).to.be.at.most(1_000_000);
    expect(tail.slice(at(1), undefined, 100)).to.equal(null);
    const kept = tail.slice(at(45), undefined, 100)!;
    expect(kept.events.map((e) => e.id)).to.deep.equal(['e46', 'e47', 'e48', 'e49', 'e50']);
    tail.release(at(50));
    expect(tail.bytes).to.equal(0);
  });
});
