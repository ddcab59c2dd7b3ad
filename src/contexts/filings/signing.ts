import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, CompactSign, compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { EvidencePublicJwk } from '../../../streams/filings/evidence-keys';

/**
 * Evidence packages are signed with Ed25519 (JWS `alg: EdDSA`) as a detached JWS: the compact
 * form `header..signature` over the exact bytes of `manifest.json` (RFC 7515 appendix F). The
 * `kid` is the key's RFC 7638 thumbprint, so anyone can recompute it from the published JWK.
 */
export interface EvidenceSigner {
  kid: string;
  publicJwk: EvidencePublicJwk;
  sign(manifest: Uint8Array): Promise<string>;
}

export async function evidenceSigner(privateKeyPem: string): Promise<EvidenceSigner> {
  const privateKey: KeyObject = createPrivateKey(privateKeyPem);
  const { kty, crv, x } = createPublicKey(privateKey).export({ format: 'jwk' }) as {
    kty: string;
    crv: string;
    x: string;
  };
  const kid = await calculateJwkThumbprint({ kty, crv, x }, 'sha256');
  const publicJwk: EvidencePublicJwk = { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' };
  return {
    kid,
    publicJwk,
    async sign(manifest) {
      const compact = await new CompactSign(manifest)
        .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JOSE', cty: 'application/json' })
        .sign(privateKey);
      const [header, , signature] = compact.split('.');
      return `${header}..${signature}`;
    },
  };
}

/** The detached JWS checked against `manifest` and a JWKS: the key it names, or why not. */
export async function verifyDetached(
  jws: string,
  manifest: Uint8Array,
  jwks: JSONWebKeySet,
): Promise<{ valid: true; kid: string } | { valid: false; reason: string }> {
  const parts = jws.trim().split('.');
  if (parts.length !== 3 || parts[1] !== '')
    return { valid: false, reason: 'manifest.jws is not a detached compact JWS (header..signature)' };
  const compact = `${parts[0]}.${Buffer.from(manifest).toString('base64url')}.${parts[2]}`;
  try {
    const { protectedHeader } = await compactVerify(compact, createLocalJWKSet(jwks), { algorithms: ['EdDSA'] });
    return { valid: true, kid: String(protectedHeader.kid) };
  } catch (error) {
    return { valid: false, reason: `signature does not verify: ${(error as Error).message}` };
  }
}
