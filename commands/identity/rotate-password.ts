import { randomUUID } from 'node:crypto';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import type { IdentityDeps } from './identity-deps';
import { hashPassword } from './passwords';
import {
  passwordSecretName,
  userEvolution,
  type UserEvent,
  type UserState,
  userStream,
} from '../../streams/identity/user';

/** The operator's `users rotate-password`: a new password, and live sessions end. */
export interface RotatePassword {
  type: 'RotatePassword';
  passwordRef: string;
}

export function decideRotatePassword(command: RotatePassword, state: UserState): UserEvent[] {
  if (state.status === 'none') throw new NotFound('User not found');
  if (state.kind === 'system') throw new Conflict('System accounts never get a password');
  if (state.status === 'invited') throw new Conflict('The user has not accepted the invite yet');
  return [
    { type: 'PasswordSet', data: { passwordRef: command.passwordRef } },
    { type: 'TokenVersionBumped', data: { tokenVersion: state.tokenVersion + 1, reason: 'password_rotated' } },
  ];
}

const decider: Decider<RotatePassword, UserState, UserEvent> = { ...userEvolution, decide: decideRotatePassword };

export async function rotatePassword(deps: IdentityDeps, userId: string, password: string, context: CommandContext) {
  const passwordRef = randomUUID();
  await deps.secrets.put(passwordSecretName(passwordRef), await hashPassword(password, deps.config.bcryptCost));
  try {
    const result = await deps.handle(
      decider,
      userStream(context.tenantId, userId),
      { type: 'RotatePassword', passwordRef },
      context,
    );
    deps.resolver.invalidate(userId);
    return result;
  } catch (error) {
    await deps.secrets.delete(passwordSecretName(passwordRef)).catch(() => undefined);
    throw error;
  }
}
