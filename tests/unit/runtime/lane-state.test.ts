import { expect } from 'chai';
import { type LaneHealth, laneState } from '../../../src/platform/runtime/report';

const lane = (over: Partial<LaneHealth> = {}): LaneHealth => ({
  name: 'compliance.cells',
  kind: 'projection',
  lag_events: 0,
  lag_seconds: 0,
  subscribed: true,
  failures: 0,
  ...over,
});

/** The System page's lane state: the most urgent of what holds, so an operator looks at the right thing first. */
describe('lane state', () => {
  it('is caught up with nothing pending, running with events still to handle', () => {
    expect(laneState(lane(), 0, 60)).to.equal('caught_up');
    expect(laneState(lane({ lag_events: 3, lag_seconds: 2 }), 0, 60)).to.equal('running');
    expect(laneState(lane({ subscribed: null }), 0, 60)).to.equal('caught_up');
  });

  it('is behind once the oldest pending event is older than the bound, not at it', () => {
    expect(laneState(lane({ lag_events: 1, lag_seconds: 60 }), 0, 60)).to.equal('running');
    expect(laneState(lane({ lag_events: 1, lag_seconds: 60.1 }), 0, 60)).to.equal('behind');
  });

  it('puts a down subscription before dead letters, and dead letters before lag', () => {
    expect(laneState(lane({ subscribed: false, lag_seconds: 500 }), 2, 60)).to.equal('subscription_down');
    expect(laneState(lane({ lag_seconds: 500 }), 2, 60)).to.equal('dead_lettered');
  });
});
