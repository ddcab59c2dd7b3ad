import { randomUUID } from 'node:crypto';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { claim, release } from '../../src/platform/command-handling/reservation';
import { Conflict } from '../../src/platform/domain-errors';
import type { IdentityDeps } from './identity-deps';
import { hashPassword } from './passwords';
import type { Role } from '../../streams/identity/permissions';
import {
  type AccountKind,
  isActiveAdmin,
  passwordSecretName,
  userEvolution,
  type UserEvent,
  type UserState,
  userStream,
} from '../../streams/identity/user';
import { grantAdminSeat } from './admin-seats';
import { emailReservation } from './email-reservation';

/**
 * An account that is active from the start: the bootstrap admin, operator-CLI users, the
 * system accounts (never a password) and test sessions. Admins invite instead.
 */
export interface RegisterUser {
  type: 'RegisterUser';
  userId: string;
  email: string;
  displayName: string | null;
  roles: Role[];
  kind: AccountKind;
  passwordRef: string | null;
  /** Re-registering an existing account is a no-op instead of a conflict (start-up). */
  ifAbsent: boolean;
}

export function decideRegisterUser(command: RegisterUser, state: UserState): UserEvent[] {
  if (state.status !== 'none') {
    if (command.ifAbsent) return [];
    throw new Conflict('User already exists');
  }
  const { userId, email, displayName, roles, kind } = command;
  const events: UserEvent[] = [
    { type: 'UserRegistered', data: { userId, email: email.toLowerCase(), displayName, roles, kind } },
  ];
  if (command.passwordRef) events.push({ type: 'PasswordSet', data: { passwordRef: command.passwordRef } });
  return events;
}

const decider: Decider<RegisterUser, UserState, UserEvent> = { ...userEvolution, decide: decideRegisterUser };

export interface RegisterUserInput {
  tenantId: string;
  userId?: string;
  email: string;
  displayName?: string | null;
  roles: Role[];
  kind?: AccountKind;
  password?: string;
  ifAbsent?: boolean;
}

/** Claims the e-mail first, so two registrations of one address cannot both succeed. */
export async function registerUser(
  deps: IdentityDeps,
  input: RegisterUserInput,
  actor: Pick<CommandContext, 'actorId'> & Partial<CommandContext>,
) {
  const userId = input.userId ?? randomUUID();
  const context = { ...actor, tenantId: input.tenantId };
  const reservation = emailReservation(input.email);
  await claim(deps.handle, reservation, userId, context);
  let passwordRef: string | null = null;
  let result;
  try {
    if (input.password !== undefined) {
      passwordRef = randomUUID();
      await deps.secrets.put(
        passwordSecretName(passwordRef),
        await hashPassword(input.password, deps.config.bcryptCost),
      );
    }
    const command: RegisterUser = {
      type: 'RegisterUser',
      userId,
      email: input.email,
      displayName: input.displayName ?? null,
      roles: [...new Set(input.roles)],
      kind: input.kind ?? 'person',
      passwordRef,
      ifAbsent: input.ifAbsent ?? false,
    };
    result = await deps.handle(decider, userStream(input.tenantId, userId), command, context);
  } catch (error) {
    if (passwordRef) await deps.secrets.delete(passwordSecretName(passwordRef)).catch(() => undefined);
    await release(deps.handle, reservation, userId, context).catch(() => undefined);
    throw error;
  }
  // After the user event (seats only ever go to active admins), outside the try: the
  // account exists now whatever the roster answers.
  if (result.events.length > 0 && isActiveAdmin(result.state)) await grantAdminSeat(deps, userId, context);
  return { userId, created: result.events.length > 0 };
}
