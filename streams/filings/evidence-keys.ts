import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';

/**
 * The public keys evidence packages were ever signed with (docs/filings.md#keys). A key is
 * published once, the first time a platform starts with it, and never withdrawn: after a
 * rotation the JWKS still holds the old key, so every package signed before stays verifiable.
 */
const PublicJwk = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
});
export type EvidencePublicJwk = z.infer<typeof PublicJwk>;

export const EvidenceKeyEventSchemas = {
  EvidenceKeyPublished: z.object({ kid: z.string(), jwk: PublicJwk, publishedAt: z.string() }),
};

export type EvidenceKeyEvent = EventsOf<typeof EvidenceKeyEventSchemas>;
export const readEvidenceKeyEvent = eventReader('evidence key', EvidenceKeyEventSchemas);

/** The kids published so far, oldest first. */
export interface EvidenceKeysState {
  kids: string[];
}

/** Platform-wide, like the graph's vertical: one stream for every tenant's packages. */
export const EVIDENCE_KEYS_SCOPE = 'global';

export const evidenceKeysAggregate: Aggregate<EvidenceKeysState, EvidenceKeyEvent> = {
  stream: (scope, id) => `filings.evidence-keys-${scope}-${id}`,
  eventTypes: Object.keys(EvidenceKeyEventSchemas) as EvidenceKeyEvent['type'][],
  initialState: { kids: [] },
  evolve: (state, event) => (state.kids.includes(event.data.kid) ? state : { kids: [...state.kids, event.data.kid] }),
  read: readEvidenceKeyEvent,
};

export const evidenceKeysStream = () => evidenceKeysAggregate.stream(EVIDENCE_KEYS_SCOPE, 'ed25519');
