import type { CommandContext, CommandHandler } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import {
  onetimeTokenEvolution,
  type OneTimeTokenEvent,
  type OneTimeTokenState,
  onetimeTokenStream,
  type TokenPurpose,
} from '../../streams/identity/onetime-token';

/**
 * The one-time token aggregate's commands: issue, redeem, void. Redeem is the single-use
 * gate: concurrent redemptions race on the stream's revision, the losers retry, see the
 * token redeemed and get the same 404 as an unknown token.
 */
export type OneTimeTokenCommand =
  | {
      type: 'IssueOneTimeToken';
      tokenHash: string;
      purpose: TokenPurpose;
      tenantId: string;
      userId: string;
      expiresAt: string;
    }
  | { type: 'RedeemOneTimeToken'; tokenHash: string }
  | { type: 'VoidOneTimeToken'; tokenHash: string; reason: string };

export const TOKEN_NOT_FOUND = 'Invite not found, already used or expired';

export function decideOneTimeToken(
  command: OneTimeTokenCommand,
  state: OneTimeTokenState,
  now: Date,
): OneTimeTokenEvent[] {
  switch (command.type) {
    case 'IssueOneTimeToken': {
      if (state.status !== 'none') throw new Conflict('token exists already');
      const { type: _type, ...data } = command;
      return [{ type: 'OneTimeTokenIssued', data }];
    }
    case 'RedeemOneTimeToken':
      if (state.status !== 'open' || Date.parse(state.expiresAt) <= now.getTime()) throw new NotFound(TOKEN_NOT_FOUND);
      return [{ type: 'OneTimeTokenRedeemed', data: { tokenHash: command.tokenHash } }];
    case 'VoidOneTimeToken':
      return state.status === 'open'
        ? [{ type: 'OneTimeTokenVoided', data: { tokenHash: command.tokenHash, reason: command.reason } }]
        : [];
    default:
      return assertNever(command);
  }
}

export const onetimeTokenDecider: Decider<OneTimeTokenCommand, OneTimeTokenState, OneTimeTokenEvent> = {
  ...onetimeTokenEvolution,
  decide: decideOneTimeToken,
};

export function runOneTimeTokenCommand(handle: CommandHandler, command: OneTimeTokenCommand, context: CommandContext) {
  return handle(onetimeTokenDecider, onetimeTokenStream(command.tokenHash), command, context);
}
