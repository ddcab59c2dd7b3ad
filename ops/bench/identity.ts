import pino from 'pino';
import { registerUser } from '../../commands/identity/register-user';
import { loadConfig } from '../../src/config';
import { identityDeps } from '../../src/identity/identity-deps';
import { startPlatform } from '../../src/platform';
import { SYSTEM_USER_ID } from '../../streams/identity/system-accounts';
import { DEFAULT_TENANT_ID } from '../../streams/identity/tenant';
import { benchDatabase, BenchRow } from './support';

interface CannonResult {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}
// autocannon ships no type declarations; only this call shape is used.
const autocannon = require('autocannon') as (options: { url: string; connections: number; duration: number; headers?: Record<string, string> }) => Promise<CannonResult>;

const CONNECTIONS = 64;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const ROUNDS = 3;

function summarize(rounds: CannonResult[]): CannonResult {
  const p99s = rounds.map((r) => r.latency.p99).sort((a, b) => a - b);
  return {
    requests: { average: rounds.reduce((sum, r) => sum + r.requests.average, 0) / rounds.length },
    latency: { p99: p99s[Math.floor(p99s.length / 2)] },
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
  };
}

/**
 * The gateway's cost: an authenticated GET /api/v1/auth/me (JWT verify, cached resolve,
 * identity headers, a directory read) against the same server's /health, 64 connections,
 * with the rate limit raised out of the way. Target: ≥ 60 % of /health's throughput.
 */
export async function run(): Promise<BenchRow[]> {
  const database = await benchDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    INTERNAL_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    AUDIT_SIGNING_KEY: 'bench-audit-signing-key-0123456789abcdef',
    JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123456789',
    SECRET_STORE_KEY: 'bench-secret-store-key-0123456789abcdef',
    BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'bench-password-1',
    BCRYPT_COST: '10',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_BURST: '1000000000',
    LOG_LEVEL: 'silent',
  });
  const platform = await startPlatform({ config, logger: pino({ level: 'silent' }) });
  try {
    const deps = identityDeps(platform.deps);
    const { userId } = await registerUser(deps, { tenantId: DEFAULT_TENANT_ID, email: 'bench-user@example.com', roles: ['operator'] }, { actorId: SYSTEM_USER_ID });
    const { token } = await deps.tokens.issue({ userId, email: 'bench-user@example.com', roles: ['operator'], tenantId: DEFAULT_TENANT_ID, tokenVersion: 0 }, new Date());
    const base = platform.publicUrl!;
    // Warm-up: JIT, connection pools, the resolve cache.
    await autocannon({ url: `${base}/api/v1/auth/me`, connections: CONNECTIONS, duration: 2, headers: { authorization: `Bearer ${token}` } });
    // Alternating rounds, so a change in machine load hits both routes alike.
    const healthRounds: CannonResult[] = [];
    const meRounds: CannonResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      healthRounds.push(await autocannon({ url: `${base}/health`, connections: CONNECTIONS, duration: SECONDS / ROUNDS }));
      meRounds.push(await autocannon({ url: `${base}/api/v1/auth/me`, connections: CONNECTIONS, duration: SECONDS / ROUNDS, headers: { authorization: `Bearer ${token}` } }));
    }
    const failed = meRounds.reduce((n, r) => n + r.non2xx + r.errors, 0);
    if (failed) throw new Error(`GET /auth/me answered ${failed} non-2xx or errors during the run`);
    const health = summarize(healthRounds);
    const me = summarize(meRounds);
    const share = (100 * me.requests.average) / health.requests.average;
    return [
      { name: 'GET /health, 64 connections', value: Math.round(health.requests.average), unit: 'req/s' },
      { name: 'GET /health p99 (median of rounds)', value: health.latency.p99, unit: 'ms' },
      { name: 'GET /auth/me (authenticated), 64 connections', value: Math.round(me.requests.average), unit: 'req/s' },
      { name: 'GET /auth/me p99 (median of rounds)', value: me.latency.p99, unit: 'ms' },
      { name: 'authenticated share of /health', value: Math.round(share * 10) / 10, unit: '%', target: '>= 60 %' },
    ];
  } finally {
    await platform.stop();
    await database.close();
  }
}
