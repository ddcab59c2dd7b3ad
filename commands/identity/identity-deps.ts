import type { PlatformDeps } from '../../src/platform/context-module';
import { createSecretStore, type SecretStore } from '../../src/platform/infra/secret-store';
import { createPasswordVerifier } from './passwords';
import { createIdentityResolver, directoryLoader, type IdentityResolver } from './resolver';
import { createSessionTokens, type SessionTokens } from './session-tokens';

/** What identity commands and routes need beyond the platform's deps. */
export interface IdentityDeps extends PlatformDeps {
  secrets: SecretStore;
  tokens: SessionTokens;
  resolver: IdentityResolver;
  verifyPassword(password: string, storedHash: string | null): Promise<boolean>;
}

// One set per platform: the gateway and the routes must share the resolver's cache so a
// write on this instance invalidates what the gateway serves.
const built = new WeakMap<PlatformDeps, IdentityDeps>();

export function identityDeps(deps: PlatformDeps): IdentityDeps {
  let identity = built.get(deps);
  if (!identity) {
    identity = {
      ...deps,
      secrets: createSecretStore(deps.knex, deps.config.secretStoreKey),
      tokens: createSessionTokens(deps.config.jwtSecret),
      resolver: createIdentityResolver({ load: directoryLoader(deps.knex) }),
      verifyPassword: createPasswordVerifier(deps.config.bcryptCost),
    };
    built.set(deps, identity);
  }
  return identity;
}
