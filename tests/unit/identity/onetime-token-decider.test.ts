import { expect } from 'chai';
import { NotFound } from '../../../src/platform/domain-errors';
import { onetimeTokenDecider } from '../../../commands/identity/onetime-token-commands';
import { hashOneTimeToken, newOneTimeToken } from '../../../commands/identity/onetime-secrets';
import type { OneTimeTokenEvent } from '../../../streams/identity/onetime-token';
import { given } from '../../support/given';

const issued: OneTimeTokenEvent = {
  type: 'OneTimeTokenIssued',
  data: { tokenHash: 'h', purpose: 'invite', tenantId: 't', userId: 'u', expiresAt: '2026-01-22T12:00:00Z' },
};
const now = new Date('2026-01-15T12:00:00Z');

describe('identity deciders: one-time tokens', () => {
  it('an open, unexpired token is redeemed once', () =>
    given(onetimeTokenDecider, [issued], now)
      .when({ type: 'RedeemOneTimeToken', tokenHash: 'h' })
      .then([{ type: 'OneTimeTokenRedeemed', data: { tokenHash: 'h' } }]));
  it('a redeemed token is not found', () =>
    given(onetimeTokenDecider, [issued, { type: 'OneTimeTokenRedeemed', data: { tokenHash: 'h' } }], now)
      .when({ type: 'RedeemOneTimeToken', tokenHash: 'h' })
      .thenThrows(NotFound));
  it('a voided token is not found', () =>
    given(onetimeTokenDecider, [issued, { type: 'OneTimeTokenVoided', data: { tokenHash: 'h', reason: 'r' } }], now)
      .when({ type: 'RedeemOneTimeToken', tokenHash: 'h' })
      .thenThrows(NotFound));
  it('an unknown token is not found', () =>
    given(onetimeTokenDecider, [], now).when({ type: 'RedeemOneTimeToken', tokenHash: 'h' }).thenThrows(NotFound));
  it('a token at or past its expiry is not found', () =>
    given(onetimeTokenDecider, [issued], new Date('2026-01-22T12:00:00Z'))
      .when({ type: 'RedeemOneTimeToken', tokenHash: 'h' })
      .thenThrows(NotFound));
  it('voiding a used token changes nothing', () =>
    given(onetimeTokenDecider, [issued, { type: 'OneTimeTokenRedeemed', data: { tokenHash: 'h' } }], now)
      .when({ type: 'VoidOneTimeToken', tokenHash: 'h', reason: 'r' })
      .thenNothing());
  it('tokens carry 256 random bits and are stored by SHA-256 only', () => {
    const a = newOneTimeToken();
    const b = newOneTimeToken();
    expect(Buffer.from(a.token, 'base64url')).to.have.length(32);
    expect(a.token).not.to.equal(b.token);
    expect(a.tokenHash)
      .to.equal(hashOneTimeToken(a.token))
      .and.to.match(/^[0-9a-f]{64}$/);
  });
});
