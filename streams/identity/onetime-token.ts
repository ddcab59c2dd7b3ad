import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';

/**
 * An invite or password-reset token. The stream is named by the token's
 * SHA-256, so a raw token finds its stream by hashing and single use is decided by the
 * stream's optimistic concurrency: of concurrent redemptions exactly one appends.
 */
export type TokenPurpose = 'invite' | 'reset';

export const onetimeTokenStream = (tokenHash: string) => `identity.onetime-token-${tokenHash}`;

export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;
export const RESET_TTL_MS = 3600 * 1000;

export const OneTimeTokenEventSchemas = {
  OneTimeTokenIssued: z.object({
    tokenHash: z.string(),
    purpose: z.enum(['invite', 'reset']),
    tenantId: z.string(),
    userId: z.string(),
    expiresAt: z.string(),
  }),
  OneTimeTokenRedeemed: z.object({ tokenHash: z.string() }),
  OneTimeTokenVoided: z.object({ tokenHash: z.string(), reason: z.string() }),
} as const;

type Data<K extends keyof typeof OneTimeTokenEventSchemas> = z.infer<(typeof OneTimeTokenEventSchemas)[K]>;
export type OneTimeTokenEvent = {
  [K in keyof typeof OneTimeTokenEventSchemas]: { type: K; data: Data<K> };
}[keyof typeof OneTimeTokenEventSchemas];
export const ONETIME_TOKEN_EVENT_TYPES = Object.keys(OneTimeTokenEventSchemas) as OneTimeTokenEvent['type'][];

interface Issued {
  tokenHash: string;
  purpose: TokenPurpose;
  tenantId: string;
  userId: string;
  expiresAt: string;
}

export type OneTimeTokenState =
  | { status: 'none' }
  | ({ status: 'open' } & Issued)
  | ({ status: 'redeemed' } & Issued)
  | ({ status: 'voided' } & Issued);

export const initialOneTimeTokenState: OneTimeTokenState = { status: 'none' };

export function evolveOneTimeToken(state: OneTimeTokenState, event: OneTimeTokenEvent): OneTimeTokenState {
  switch (event.type) {
    case 'OneTimeTokenIssued':
      return { status: 'open', ...event.data };
    case 'OneTimeTokenRedeemed':
      return state.status === 'none' ? state : { ...state, status: 'redeemed' };
    case 'OneTimeTokenVoided':
      return state.status === 'none' ? state : { ...state, status: 'voided' };
  }
}

export function readOneTimeTokenEvent(event: RecordedEvent): OneTimeTokenEvent {
  const schema = OneTimeTokenEventSchemas[event.type as keyof typeof OneTimeTokenEventSchemas];
  if (!schema) throw new Error(`unknown one-time token event type ${event.type}`);
  return { type: event.type, data: schema.parse(event.data) } as OneTimeTokenEvent;
}

export const onetimeTokenEvolution = {
  initialState: initialOneTimeTokenState,
  evolve: evolveOneTimeToken,
  read: readOneTimeTokenEvent,
};
