import { expect } from 'chai';
import { adminSeatDecider, type AdminSeatCommand, decideAdminSeat } from '../../../commands/identity/admin-seats';
import { removesActiveAdmin } from '../../../commands/identity/update-user';
import { Conflict } from '../../../src/platform/domain-errors';
import {
  type AdminRosterEvent,
  evolveAdminRoster,
  initialAdminRosterState,
} from '../../../streams/identity/admin-roster';
import { userEvolution, type UserEvent } from '../../../streams/identity/user';
import { given } from '../../support/given';

const ada = 'aaaaaaaa-0000-4000-8000-000000000001';
const bob = 'bbbbbbbb-0000-4000-8000-000000000002';
const cy = 'cccccccc-0000-4000-8000-000000000003';
const opened = (...userIds: string[]): AdminRosterEvent => ({ type: 'AdminRosterOpened', data: { userIds } });
const granted = (userId: string): AdminRosterEvent => ({ type: 'AdminSeatGranted', data: { userId } });
const released = (userId: string): AdminRosterEvent => ({ type: 'AdminSeatReleased', data: { userId } });
const grant = (userId: string, directoryAdmins: string[] = []): AdminSeatCommand => ({
  type: 'GrantAdminSeat',
  userId,
  directoryAdmins,
});
const release = (userId: string, directoryAdmins: string[] = []): AdminSeatCommand => ({
  type: 'ReleaseAdminSeat',
  userId,
  directoryAdmins,
});

describe('identity deciders: the tenant admin roster', () => {
  describe('releasing a seat (before an admin is deactivated or demoted)', () => {
    it('the only seat cannot be released: the last active admin cannot be removed', () =>
      given(adminSeatDecider, [opened(ada)])
        .when(release(ada))
        .thenThrows(Conflict, /^The last active admin cannot be removed$/));
    it('one of two seats is released', () =>
      given(adminSeatDecider, [opened(ada), granted(bob)])
        .when(release(ada))
        .then([released(ada)]));
    it('after one of two seats went, the other is the last', () =>
      given(adminSeatDecider, [opened(ada), granted(bob), released(ada)])
        .when(release(bob))
        .thenThrows(Conflict, /last active admin/));
    it('a user without a seat releases nothing, even when theirs would be the last', () =>
      given(adminSeatDecider, [opened(ada)])
        .when(release(bob))
        .thenNothing());
    it('a recorded roster ignores the directory the caller read', () =>
      given(adminSeatDecider, [opened(ada)])
        .when(release(ada, [ada, bob, cy]))
        .thenThrows(Conflict));
    it('a roster with no seats at all releases nothing', () =>
      given(adminSeatDecider, [opened()]).when(release(ada)).thenNothing());
  });

  describe('granting a seat (after a user becomes an active admin)', () => {
    it('a new admin gets a seat', () =>
      given(adminSeatDecider, [opened(ada)])
        .when(grant(bob))
        .then([granted(bob)]));
    it('granting a held seat changes nothing', () =>
      given(adminSeatDecider, [opened(ada), granted(bob)])
        .when(grant(bob))
        .thenNothing());
    it('a released seat can be granted again (reactivation)', () =>
      given(adminSeatDecider, [opened(ada, bob), released(bob)])
        .when(grant(bob))
        .then([granted(bob)]));
  });

  describe('tenants that predate the roster (nothing recorded yet)', () => {
    it("the first release opens the roster with the directory's admins, then releases", () =>
      given(adminSeatDecider)
        .when(release(ada, [ada, bob]))
        .then([opened(ada, bob), released(ada)]));
    it("the directory's only admin cannot be released", () =>
      given(adminSeatDecider)
        .when(release(ada, [ada]))
        .thenThrows(Conflict, /last active admin/));
    it("the first grant opens the roster with the directory's admins, then grants", () =>
      given(adminSeatDecider)
        .when(grant(cy, [ada, bob]))
        .then([opened(ada, bob), granted(cy)]));
    it('a first command that changes no seat still records where the roster starts', () =>
      given(adminSeatDecider)
        .when(grant(ada, [ada, bob]))
        .then([opened(ada, bob)]));
    it('a directory listing an admin twice opens one seat for them', () =>
      given(adminSeatDecider)
        .when(release(ada, [ada, ada]))
        .thenThrows(Conflict));
    it("a brand-new tenant's first admin opens an empty roster and takes the first seat", () =>
      given(adminSeatDecider)
        .when(grant(ada, []))
        .then([opened(), granted(ada)]));
  });

  it('evolve keeps seats a set, in grant order', () => {
    const state = [opened(ada), granted(bob), granted(bob), released(ada), granted(cy)].reduce(
      evolveAdminRoster,
      initialAdminRosterState,
    );
    expect(state).to.deep.equal({ status: 'open', seats: [bob, cy] });
  });

  it('the seat a change must release: only when an active admin stops being one', () => {
    const fold = (events: UserEvent[]) => events.reduce(userEvolution.evolve, userEvolution.initialState);
    const activeAdmin = fold([
      {
        type: 'UserRegistered',
        data: { userId: ada, email: 'a@x.io', displayName: null, roles: ['admin', 'operator'], kind: 'person' },
      },
    ]);
    const invitedAdmin = fold([
      {
        type: 'UserInvited',
        data: { userId: ada, email: 'a@x.io', displayName: null, roles: ['admin'], tokenHash: 'h', expiresAt: 'x' },
      },
    ]);
    expect(removesActiveAdmin({ isActive: false }, activeAdmin)).to.equal(true);
    expect(removesActiveAdmin({ roles: ['operator'] }, activeAdmin)).to.equal(true);
    expect(removesActiveAdmin({ roles: ['operator', 'admin'] }, activeAdmin)).to.equal(false);
    expect(removesActiveAdmin({ isActive: true }, activeAdmin)).to.equal(false);
    expect(removesActiveAdmin({}, activeAdmin)).to.equal(false);
    expect(removesActiveAdmin({ isActive: false }, invitedAdmin)).to.equal(false);
    expect(removesActiveAdmin({ isActive: false }, userEvolution.initialState)).to.equal(false);
  });

  it('decide is pure: the same command on the same state decides the same events', () => {
    const state = [opened(ada, bob)].reduce(evolveAdminRoster, initialAdminRosterState);
    expect(decideAdminSeat(release(ada), state)).to.deep.equal(decideAdminSeat(release(ada), state));
    expect(state).to.deep.equal({ status: 'open', seats: [ada, bob] });
  });
});
