import pino from 'pino';
import { loadConfig } from '../../src/config';
import type { ContextModule, PlatformDeps } from '../../src/context-module';
import { Platform, startPlatform } from '../../src/platform';
import { createTestDatabase } from './database';
import { httpClient, HttpClient } from './http';
import { TEST_JWT_SECRET, TEST_SECRET_STORE_KEY, TEST_SIGNING_KEY } from './secrets';
import { contexts as productContexts } from '../../src/contexts';
import { identityContext } from '../../src/api/identity';

export { TEST_JWT_SECRET };

export interface TestPlatform {
  platform: Platform;
  deps: PlatformDeps;
  /** The public listener under /api/v1 (gateway in front). */
  api: HttpClient;
  /** The internal listener under /api/v1 (no gateway). */
  internal: HttpClient;
  publicUrl: string;
  internalUrl: string;
  close(): Promise<void>;
}

/**
 * The real platform (same composition root as `npm start`) on ports chosen by the kernel,
 * over a fresh database of its own. `contexts` defaults to every context of the product.
 */
export async function startTestPlatform(options: { contexts?: ContextModule[]; env?: Record<string, string> } = {}): Promise<TestPlatform> {
  const { url } = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    INTERNAL_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: url,
    AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
    JWT_SECRET: TEST_JWT_SECRET,
    BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap-password-1',
    SECRET_STORE_KEY: TEST_SECRET_STORE_KEY,
    BCRYPT_COST: '10',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...options.env,
  });
  const logger = pino({ level: config.logLevel });
  let contexts = options.contexts ?? productContexts;
  // A hand-picked context list still gets the real gateway (and the users signIn creates).
  if (!contexts.some((c) => c.gateway)) {
    contexts = [identityContext, ...contexts];
  }
  const platform = await startPlatform({ config, logger, contexts });
  const publicUrl = platform.publicUrl!;
  return {
    platform,
    deps: platform.deps,
    api: httpClient(`${publicUrl}/api/v1`),
    internal: httpClient(`${platform.internalUrl}/api/v1`),
    publicUrl,
    internalUrl: platform.internalUrl,
    close: () => platform.stop(),
  };
}
