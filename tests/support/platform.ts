import type { Logger } from 'pino';
import pino from 'pino';
import { loadConfig } from '../../src/platform/config';
import type { ContextModule, PlatformDeps } from '../../src/platform/context-module';
import { type Platform, startPlatform } from '../../src/platform/platform';
import { createTestDatabase } from './database';
import { httpClient, type HttpClient, type ResponseHook } from './http';
import { contractOf } from '../../src/platform/openapi/contract';
import { documentFor } from '../../src/platform/openapi/serve';
import type { Listener } from '../../src/platform/openapi/describe';
import { TEST_EVIDENCE_KEY, TEST_JWT_SECRET, TEST_SECRET_STORE_KEY, TEST_SIGNING_KEY } from './secrets';
import { contexts as productContexts } from '../../src/contexts';
import { identityContext } from '../../src/contexts/identity/module';

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

/** The configuration of a test instance on `databaseUrl` (the same secrets for every instance of a test). */
function testConfig(databaseUrl: string, env: Record<string, string> = {}) {
  return loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    INTERNAL_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
    EVIDENCE_SIGNING_KEY: TEST_EVIDENCE_KEY,
    JWT_SECRET: TEST_JWT_SECRET,
    BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap-password-1',
    SECRET_STORE_KEY: TEST_SECRET_STORE_KEY,
    BCRYPT_COST: '10',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...env,
  });
}

/**
 * Another instance of the platform on a test platform's database (`ROLE=api` by default: it
 * serves requests and follows the first one's projections), with every product context.
 */
export async function startSecondInstance(
  t: TestPlatform,
  env: Record<string, string> = {},
): Promise<{ platform: Platform; api: HttpClient }> {
  const platform = await startPlatform({
    config: testConfig(t.platform.db.url, { ROLE: 'api', ...env }),
    contexts: productContexts,
    logger: pino({ level: 'silent' }),
  });
  return { platform, api: httpClient(`${platform.publicUrl}/api/v1`) };
}

/**
 * The real platform (same composition root as `npm start`) on ports chosen by the kernel,
 * over a fresh database of its own. `contexts` defaults to every context of the product.
 */
export async function startTestPlatform(
  options: {
    contexts?: ContextModule[];
    env?: Record<string, string>;
    logger?: Logger;
    databaseUrl?: (url: string) => Promise<string>;
  } = {},
): Promise<TestPlatform> {
  const { url: created } = await createTestDatabase();
  // A fault test puts a relay between the platform and its database.
  const url = options.databaseUrl ? await options.databaseUrl(created) : created;
  const config = testConfig(url, options.env);
  const logger = options.logger ?? pino({ level: config.logLevel });
  let contexts = options.contexts ?? productContexts;
  // A hand-picked context list still gets the real gateway (and the users signIn creates).
  if (!contexts.some((c) => c.gateway)) {
    contexts = [identityContext, ...contexts];
  }
  const platform = await startPlatform({ config, logger, contexts });
  const publicUrl = platform.publicUrl!;
  // Every response an integration test receives is checked against the API contract.
  const strict = options.contexts === undefined;
  const hook = (listener: Listener) => contractHook(contexts, listener, strict);
  return {
    platform,
    deps: platform.deps,
    api: httpClient(`${publicUrl}/api/v1`, {}, hook('public')),
    internal: httpClient(`${platform.internalUrl}/api/v1`, {}, hook('internal')),
    publicUrl,
    internalUrl: platform.internalUrl,
    close: () => platform.stop(),
  };
}

/**
 * The contract check of the test HTTP client: a response that does not match the
 * OpenAPI document fails the request, and so the test. With the product's contexts
 * (`strict`) a response from an undescribed route fails too, except a 404 for a path no
 * route serves or a gateway answer; a hand-picked context list (toy contexts) only checks the routes it describes.
 */
/** The gateway answers (401/403/429/503 `{error}`) before any route is matched, so also for paths no route serves. */
const gatewayAnswer = (response: { status: number; body: unknown }) =>
  [401, 403, 429, 503].includes(response.status) &&
  typeof (response.body as { error?: unknown } | null)?.error === 'string' &&
  Object.keys(response.body as object).length === 1;

const contracts = new Map<string, ReturnType<typeof contractOf>>();

export function contractHook(contexts: ContextModule[], listener: Listener, strict: boolean): ResponseHook {
  const key = `${listener}:${contexts.map((c) => c.name).join(',')}`;
  return (method, path, response) => {
    let contract = contracts.get(key);
    if (!contract) contracts.set(key, (contract = contractOf(documentFor(contexts, listener))));
    const verdict = contract.check(
      method,
      '/api/v1' + path,
      response.status,
      response.headers.get('content-type') ?? '',
      response.body,
    );
    if (verdict.ok) return;
    if (verdict.undescribed && (!strict || response.status === 404 || gatewayAnswer(response))) return;
    throw new Error(`API contract (${listener}): ${verdict.reason}`);
  };
}
