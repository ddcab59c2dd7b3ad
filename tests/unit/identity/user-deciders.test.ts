import { Conflict, NotFound } from '../../../src/platform/domain-errors';
import type { Decider } from '../../../src/platform/command-handling/decider';
import { decideCompleteOneTimeToken } from '../../../commands/identity/redeem-onetime-token';
import { decideIssuePasswordReset } from '../../../commands/identity/issue-password-reset';
import { decideInviteUser } from '../../../commands/identity/invite-user';
import { decideLogOutEverywhere } from '../../../commands/identity/log-out-everywhere';
import { decideRegisterUser } from '../../../commands/identity/register-user';
import { decideRotatePassword } from '../../../commands/identity/rotate-password';
import { decideUpdateUser, type UpdateUser } from '../../../commands/identity/update-user';
import { userEvolution, type UserEvent, type UserState } from '../../../streams/identity/user';
import { given } from '../../support/given';

const as = <C>(decide: (c: C, s: UserState) => UserEvent[]): Decider<C, UserState, UserEvent> => ({
  ...userEvolution,
  decide,
});

const userId = '11111111-1111-4111-8111-111111111111';
const invited: UserEvent = {
  type: 'UserInvited',
  data: {
    userId,
    email: 'dana@example.com',
    displayName: 'Dana',
    roles: ['operator'],
    tokenHash: 'h-invite',
    expiresAt: '2026-01-20T00:00:00Z',
  },
};
const admin: UserEvent = {
  type: 'UserRegistered',
  data: { userId, email: 'ada@example.com', displayName: null, roles: ['admin'], kind: 'person' },
};
const system: UserEvent = {
  type: 'UserRegistered',
  data: { userId, email: 'system@accounts.internal', displayName: 'System', roles: [], kind: 'system' },
};
const accepted: UserEvent[] = [
  invited,
  { type: 'InviteAccepted', data: { tokenHash: 'h-invite' } },
  { type: 'PasswordSet', data: { passwordRef: 'p1' } },
];
const update = (fields: Partial<UpdateUser>): UpdateUser => ({
  type: 'UpdateUser',
  adminSeatReleased: false,
  ...fields,
});

describe('identity deciders: user accounts', () => {
  describe('invite and register', () => {
    it('an invite lower-cases the e-mail and de-duplicates roles', () =>
      given(as(decideInviteUser))
        .when({
          type: 'InviteUser',
          userId,
          email: 'Dana@Example.COM',
          displayName: null,
          roles: ['operator', 'operator'],
          tokenHash: 'h',
          expiresAt: 'x',
        })
        .then([
          {
            type: 'UserInvited',
            data: {
              userId,
              email: 'dana@example.com',
              displayName: null,
              roles: ['operator'],
              tokenHash: 'h',
              expiresAt: 'x',
            },
          },
        ]));
    it('inviting over an existing account is a conflict', () =>
      given(as(decideInviteUser), [invited])
        .when({
          type: 'InviteUser',
          userId,
          email: 'x@example.com',
          displayName: null,
          roles: [],
          tokenHash: 'h',
          expiresAt: 'x',
        })
        .thenThrows(Conflict));
    it('registering with a password records only the secret reference', () =>
      given(as(decideRegisterUser))
        .when({
          type: 'RegisterUser',
          userId,
          email: 'A@B.io',
          displayName: null,
          roles: ['admin'],
          kind: 'person',
          passwordRef: 'ref-1',
          ifAbsent: false,
        })
        .then([
          {
            type: 'UserRegistered',
            data: { userId, email: 'a@b.io', displayName: null, roles: ['admin'], kind: 'person' },
          },
          { type: 'PasswordSet', data: { passwordRef: 'ref-1' } },
        ]));
    it('re-registering a system account at start-up changes nothing', () =>
      given(as(decideRegisterUser), [system])
        .when({
          type: 'RegisterUser',
          userId,
          email: 'system@accounts.internal',
          displayName: 'System',
          roles: [],
          kind: 'system',
          passwordRef: null,
          ifAbsent: true,
        })
        .thenNothing());
    it('re-registering otherwise is a conflict', () =>
      given(as(decideRegisterUser), [admin])
        .when({
          type: 'RegisterUser',
          userId,
          email: 'a@b.io',
          displayName: null,
          roles: [],
          kind: 'person',
          passwordRef: null,
          ifAbsent: false,
        })
        .thenThrows(Conflict));
  });

  describe('redeeming a one-time token on the user', () => {
    it('an open invite activates the invited user and sets the password', () =>
      given(as(decideCompleteOneTimeToken), [invited])
        .when({ type: 'CompleteOneTimeToken', tokenHash: 'h-invite', purpose: 'invite', passwordRef: 'p1' })
        .then([
          { type: 'InviteAccepted', data: { tokenHash: 'h-invite' } },
          { type: 'PasswordSet', data: { passwordRef: 'p1' } },
        ]));
    it('a token the user no longer holds is not found', () =>
      given(as(decideCompleteOneTimeToken), accepted)
        .when({ type: 'CompleteOneTimeToken', tokenHash: 'h-invite', purpose: 'invite', passwordRef: 'p2' })
        .thenThrows(NotFound));
    it('an invite of a disabled user is not found', () =>
      given(as(decideCompleteOneTimeToken), [invited, { type: 'UserDeactivated', data: {} }])
        .when({ type: 'CompleteOneTimeToken', tokenHash: 'h-invite', purpose: 'invite', passwordRef: 'p' })
        .thenThrows(NotFound));
    it('a reset sets the password and bumps the token version', () =>
      given(as(decideCompleteOneTimeToken), [
        ...accepted,
        { type: 'PasswordResetIssued', data: { tokenHash: 'h-reset', expiresAt: 'x' } },
      ])
        .when({ type: 'CompleteOneTimeToken', tokenHash: 'h-reset', purpose: 'reset', passwordRef: 'p2' })
        .then([
          { type: 'PasswordResetRedeemed', data: { tokenHash: 'h-reset' } },
          { type: 'PasswordSet', data: { passwordRef: 'p2' } },
          { type: 'TokenVersionBumped', data: { tokenVersion: 1, reason: 'password_reset' } },
        ]));
  });

  describe('editing (PATCH)', () => {
    it('deactivation disables, bumps the token version and voids open tokens', () =>
      given(as(decideUpdateUser), [invited])
        .when(update({ isActive: false }))
        .then([
          { type: 'UserDeactivated', data: {} },
          { type: 'TokenVersionBumped', data: { tokenVersion: 1, reason: 'deactivated' } },
          { type: 'OneTimeTokensVoided', data: { tokenHashes: ['h-invite'], reason: 'deactivated' } },
        ]));
    it('an active admin is not deactivated unless the roster released their seat first', () =>
      given(as(decideUpdateUser), [admin])
        .when(update({ isActive: false }))
        .thenThrows(Conflict, /changed concurrently/));
    it('an active admin does not lose the admin role unless the roster released their seat first', () =>
      given(as(decideUpdateUser), [admin])
        .when(update({ roles: ['operator'] }))
        .thenThrows(Conflict));
    it('a disabled admin loses the role without a seat to release', () =>
      given(as(decideUpdateUser), [admin, { type: 'UserDeactivated', data: {} }])
        .when(update({ roles: ['operator'] }))
        .then([{ type: 'RolesChanged', data: { roles: ['operator'] } }]));
    it('the last admin may still be renamed', () =>
      given(as(decideUpdateUser), [admin])
        .when(update({ displayName: 'Ada' }))
        .then([{ type: 'DisplayNameChanged', data: { displayName: 'Ada' } }]));
    it('with the seat released, deactivating an admin is fine', () =>
      given(as(decideUpdateUser), [admin])
        .when(update({ isActive: false, adminSeatReleased: true }))
        .then([
          { type: 'UserDeactivated', data: {} },
          { type: 'TokenVersionBumped', data: { tokenVersion: 1, reason: 'deactivated' } },
        ]));
    it('the same roles in another order change nothing', () =>
      given(as(decideUpdateUser), [{ ...admin, data: { ...admin.data, roles: ['admin', 'operator'] } } as UserEvent])
        .when(update({ roles: ['operator', 'admin'] }))
        .thenNothing());
    it('reactivating a disabled user', () =>
      given(as(decideUpdateUser), [...accepted, { type: 'UserDeactivated', data: {} }])
        .when(update({ isActive: true }))
        .then([{ type: 'UserReactivated', data: {} }]));
    it('an unknown user is not found; a system account cannot be changed', () => {
      given(as(decideUpdateUser))
        .when(update({ displayName: 'x' }))
        .thenThrows(NotFound);
      given(as(decideUpdateUser), [system])
        .when(update({ roles: ['admin'] }))
        .thenThrows(Conflict);
    });
  });

  describe('resets, logout-all, rotation', () => {
    it('a reset voids open tokens, bumps the version and records the new token hash', () =>
      given(as(decideIssuePasswordReset), [
        ...accepted,
        { type: 'PasswordResetIssued', data: { tokenHash: 'h-old', expiresAt: 'x' } },
      ])
        .when({ type: 'IssuePasswordReset', tokenHash: 'h-new', expiresAt: 'y' })
        .then([
          { type: 'OneTimeTokensVoided', data: { tokenHashes: ['h-old'], reason: 'superseded by a password reset' } },
          { type: 'TokenVersionBumped', data: { tokenVersion: 1, reason: 'password_reset' } },
          { type: 'PasswordResetIssued', data: { tokenHash: 'h-new', expiresAt: 'y' } },
        ]));
    it('a reset for an invited user is a conflict', () =>
      given(as(decideIssuePasswordReset), [invited])
        .when({ type: 'IssuePasswordReset', tokenHash: 'h', expiresAt: 'y' })
        .thenThrows(Conflict));
    it('logout-all bumps the token version each time', () =>
      given(as(decideLogOutEverywhere), [
        ...accepted,
        { type: 'TokenVersionBumped', data: { tokenVersion: 4, reason: 'logout_all' } },
      ])
        .when({ type: 'LogOutEverywhere' })
        .then([{ type: 'TokenVersionBumped', data: { tokenVersion: 5, reason: 'logout_all' } }]));
    it('rotating a password revokes sessions; system accounts never get one', () => {
      given(as(decideRotatePassword), accepted)
        .when({ type: 'RotatePassword', passwordRef: 'p9' })
        .then([
          { type: 'PasswordSet', data: { passwordRef: 'p9' } },
          { type: 'TokenVersionBumped', data: { tokenVersion: 1, reason: 'password_rotated' } },
        ]);
      given(as(decideRotatePassword), [system]).when({ type: 'RotatePassword', passwordRef: 'p' }).thenThrows(Conflict);
    });
  });
});
