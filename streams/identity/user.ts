import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { ROLES, type Role } from './permissions';

/**
 * A user account: invited → active ⇄ disabled. The password hash lives in
 * the secret store under `passwordSecretName(passwordRef)`; events carry only the ref.
 * One-time tokens (invite, reset) are referenced by their SHA-256, never by value.
 */
export const userStream = (tenantId: string, userId: string) => `identity.user-${tenantId}-${userId}`;

/** The secret-store name of one password hash; a fresh ref per password set. */
export const passwordSecretName = (passwordRef: string) => `identity/password/${passwordRef}`;

export type AccountKind = 'person' | 'system';
export type TokenVersionReason = 'logout_all' | 'deactivated' | 'password_reset' | 'password_rotated';

const role = z.enum(ROLES);

export const UserEventSchemas = {
  UserInvited: z.object({
    userId: z.string(),
    email: z.string(),
    displayName: z.string().nullable(),
    roles: z.array(role),
    tokenHash: z.string(),
    expiresAt: z.string(),
  }),
  UserRegistered: z.object({
    userId: z.string(),
    email: z.string(),
    displayName: z.string().nullable(),
    roles: z.array(role),
    kind: z.enum(['person', 'system']),
  }),
  InviteAccepted: z.object({ tokenHash: z.string() }),
  PasswordSet: z.object({ passwordRef: z.string() }),
  PasswordResetIssued: z.object({ tokenHash: z.string(), expiresAt: z.string() }),
  PasswordResetRedeemed: z.object({ tokenHash: z.string() }),
  OneTimeTokensVoided: z.object({ tokenHashes: z.array(z.string()), reason: z.string() }),
  DisplayNameChanged: z.object({ displayName: z.string().nullable() }),
  RolesChanged: z.object({ roles: z.array(role) }),
  UserDeactivated: z.object({}),
  UserReactivated: z.object({}),
  TokenVersionBumped: z.object({
    tokenVersion: z.number().int(),
    reason: z.enum(['logout_all', 'deactivated', 'password_reset', 'password_rotated']),
  }),
} as const;

type Data<K extends keyof typeof UserEventSchemas> = z.infer<(typeof UserEventSchemas)[K]>;
export type UserEvent = {
  [K in keyof typeof UserEventSchemas]: { type: K; data: Data<K> };
}[keyof typeof UserEventSchemas];
export const USER_EVENT_TYPES = Object.keys(UserEventSchemas) as UserEvent['type'][];

interface Account {
  userId: string;
  email: string;
  displayName: string | null;
  roles: Role[];
  kind: AccountKind;
  tokenVersion: number;
  passwordRef: string | null;
  /** Hashes of invite/reset tokens that may still be redeemed. */
  openTokens: string[];
}

export type UserState =
  | { status: 'none' }
  | ({ status: 'invited' } & Account)
  | ({ status: 'active' } & Account)
  | ({ status: 'disabled' } & Account);

export type ExistingUser = Exclude<UserState, { status: 'none' }>;

export const initialUserState: UserState = { status: 'none' };

/** Holds (or should hold) a seat on the tenant's admin roster. */
export const isActiveAdmin = (state: UserState): boolean =>
  state.status === 'active' && state.kind === 'person' && state.roles.includes('admin');

export function evolveUser(state: UserState, event: UserEvent): UserState {
  if (event.type === 'UserInvited') {
    const { userId, email, displayName, roles, tokenHash } = event.data;
    return {
      status: 'invited',
      userId,
      email,
      displayName,
      roles,
      kind: 'person',
      tokenVersion: 0,
      passwordRef: null,
      openTokens: [tokenHash],
    };
  }
  if (event.type === 'UserRegistered') {
    const { userId, email, displayName, roles, kind } = event.data;
    return {
      status: 'active',
      userId,
      email,
      displayName,
      roles,
      kind,
      tokenVersion: 0,
      passwordRef: null,
      openTokens: [],
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'InviteAccepted':
      return { ...state, status: 'active', openTokens: state.openTokens.filter((h) => h !== event.data.tokenHash) };
    case 'PasswordSet':
      return { ...state, passwordRef: event.data.passwordRef };
    case 'PasswordResetIssued':
      return { ...state, openTokens: [...state.openTokens, event.data.tokenHash] };
    case 'PasswordResetRedeemed':
      return { ...state, openTokens: state.openTokens.filter((h) => h !== event.data.tokenHash) };
    case 'OneTimeTokensVoided':
      return { ...state, openTokens: state.openTokens.filter((h) => !event.data.tokenHashes.includes(h)) };
    case 'DisplayNameChanged':
      return { ...state, displayName: event.data.displayName };
    case 'RolesChanged':
      return { ...state, roles: event.data.roles };
    case 'UserDeactivated':
      return { ...state, status: 'disabled' };
    case 'UserReactivated':
      // An invite voided by deactivation is replaced by a reset URL, which needs `active`.
      return { ...state, status: 'active' };
    case 'TokenVersionBumped':
      return { ...state, tokenVersion: event.data.tokenVersion };
    default:
      return state;
  }
}

export function readUserEvent(event: RecordedEvent): UserEvent {
  const schema = UserEventSchemas[event.type as keyof typeof UserEventSchemas];
  if (!schema) throw new Error(`unknown user event type ${event.type}`);
  return { type: event.type, data: schema.parse(event.data) } as UserEvent;
}

/** What every user command's decider shares; each command file adds its `decide`. */
export const userEvolution = {
  stream: userStream,
  eventTypes: USER_EVENT_TYPES,
  initialState: initialUserState,
  evolve: evolveUser,
  read: readUserEvent,
};
