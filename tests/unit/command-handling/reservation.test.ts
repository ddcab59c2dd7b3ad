import { Conflict } from '../../../src/platform/domain-errors';
import { reservationDecider, reservationStream } from '../../../src/platform/command-handling/reservation';
import { given } from '../../support/given';
import { expect } from 'chai';

describe('reservation decider', () => {
  const decider = reservationDecider('e-mail address');

  it('a free value is claimed', () => {
    given(decider)
      .when({ type: 'Claim', owner: 'u1' })
      .then([{ type: 'ReservationClaimed', data: { owner: 'u1' } }]);
  });

  it('claiming a value held by someone else is a conflict naming the value', () => {
    given(decider, [{ type: 'ReservationClaimed', data: { owner: 'u1' } }])
      .when({ type: 'Claim', owner: 'u2' })
      .thenThrows(Conflict, /e-mail address is already taken/);
  });

  it('the holder claiming again changes nothing (idempotent retry)', () => {
    given(decider, [{ type: 'ReservationClaimed', data: { owner: 'u1' } }])
      .when({ type: 'Claim', owner: 'u1' })
      .thenNothing();
  });

  it('a released value can be claimed by another owner', () => {
    given(decider, [
      { type: 'ReservationClaimed', data: { owner: 'u1' } },
      { type: 'ReservationReleased', data: { owner: 'u1' } },
    ])
      .when({ type: 'Claim', owner: 'u2' })
      .then([{ type: 'ReservationClaimed', data: { owner: 'u2' } }]);
  });

  it('only the holder can release', () => {
    given(decider, [{ type: 'ReservationClaimed', data: { owner: 'u1' } }])
      .when({ type: 'Release', owner: 'u2' })
      .thenNothing();
  });

  it('stream names never contain the reserved value itself', () => {
    const name = reservationStream('identity', 't1', 'email', 'jane@example.com');
    expect(name).to.match(/^identity\.reservation-t1-email-[0-9a-f]{40}$/);
    expect(name).not.to.contain('jane');
  });
});
