import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { IdentityDeps } from './identity-deps';
import type { UserEvent } from '../../streams/identity/user';
import { runOneTimeTokenCommand } from './onetime-token-commands';

/** Mirrors a user's `OneTimeTokensVoided` onto each token's own stream. */
export async function voidTokenStreams(
  deps: IdentityDeps,
  events: UserEvent[],
  context: CommandContext,
): Promise<void> {
  for (const event of events) {
    if (event.type !== 'OneTimeTokensVoided') continue;
    for (const tokenHash of event.data.tokenHashes) {
      await runOneTimeTokenCommand(
        deps.handle,
        { type: 'VoidOneTimeToken', tokenHash, reason: event.data.reason },
        context,
      );
    }
  }
}
