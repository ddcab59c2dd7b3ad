import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import {
  type EvidenceKeyEvent,
  evidenceKeysAggregate,
  type EvidenceKeysState,
  evidenceKeysStream,
  type EvidencePublicJwk,
} from '../../streams/filings/evidence-keys';
import { SYSTEM_ACCOUNTS_TENANT, SYSTEM_USER_ID } from '../../streams/identity/system-accounts';

export interface PublishEvidenceKey {
  type: 'PublishEvidenceKey';
  jwk: EvidencePublicJwk;
}

/** Given the keys published so far, then the signing key is published unless it already is (every start asks). */
export const publishEvidenceKeyDecider: Decider<PublishEvidenceKey, EvidenceKeysState, EvidenceKeyEvent> = {
  ...evidenceKeysAggregate,
  decide: (command, state, now) =>
    state.kids.includes(command.jwk.kid)
      ? []
      : [
          {
            type: 'EvidenceKeyPublished',
            data: { kid: command.jwk.kid, jwk: command.jwk, publishedAt: now.toISOString() },
          },
        ],
};

export async function publishEvidenceKey(deps: Pick<PlatformDeps, 'handle'>, jwk: EvidencePublicJwk): Promise<void> {
  await deps.handle(
    publishEvidenceKeyDecider,
    evidenceKeysStream(),
    { type: 'PublishEvidenceKey', jwk },
    { tenantId: SYSTEM_ACCOUNTS_TENANT, actorId: SYSTEM_USER_ID },
  );
}
