/**
 * `npm run fuzz`: schemathesis against a freshly started platform.
 *
 * 1. Installs schemathesis with pip into its own venv under the user cache directory
 *    (`$XDG_CACHE_HOME` or ~/.cache, `compliance-platform/schemathesis-<version>`); reused later.
 * 2. Starts the platform with embedded defaults (embedded PostgreSQL in a temp data dir,
 *    development secrets, a raised rate limit) on free ports.
 * 3. Logs in as the bootstrap admin (POST /api/v1/auth/token; the token is the svc_token cookie).
 * 4. Runs schemathesis on /api/v1/openapi.json with a bounded number of examples per
 *    operation and the checks: no 5xx, documented status codes, content types and response
 *    schemas. Exit code: schemathesis's.
 *
 * When schemathesis cannot be installed (no PyPI here), or with `--engine builtin`, the
 * built-in engine (ops/fuzz-builtin.ts) runs the same checks with its own generator.
 *
 * Options: --max-examples N (default 25), --seed N, --workers N (default 1), --engine schemathesis|builtin.
 * Env: FUZZ_PYTHON (default python3), FUZZ_PIP_ARGS (extra pip arguments, e.g. an index URL).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/platform/config';
import { createLogger } from '../src/platform/infra/logger';
import { startPlatform } from '../src/platform/platform';
import { contexts } from '../src/contexts';
import { builtinFuzz } from './fuzz-builtin';

const SCHEMATHESIS = '3.39.16';
/** Revoking every session (or seeding thousands of wells) would end or swamp the run. */
const EXCLUDED = ['/api/v1/auth/logout-all', '/api/v1/graph/seed'];

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
}

/** The venv's `schemathesis` executable, installing it on first use. */
function ensureSchemathesis(): string {
  const cache = join(
    process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
    'compliance-platform',
    `schemathesis-${SCHEMATHESIS}`,
  );
  const bin = join(cache, 'bin', 'schemathesis');
  if (existsSync(bin)) return bin;
  console.log(`installing schemathesis ${SCHEMATHESIS} into ${cache}`);
  run(process.env.FUZZ_PYTHON || 'python3', ['-m', 'venv', cache]);
  const extra = (process.env.FUZZ_PIP_ARGS ?? '').split(/\s+/).filter(Boolean);
  try {
    run(join(cache, 'bin', 'pip'), [
      'install',
      '--disable-pip-version-check',
      '--quiet',
      ...extra,
      `schemathesis==${SCHEMATHESIS}`,
    ]);
  } catch (error) {
    rmSync(cache, { recursive: true, force: true });
    throw new Error(
      `pip could not install schemathesis (is PyPI reachable? FUZZ_PIP_ARGS may name a mirror): ${(error as Error).message}`,
      { cause: error },
    );
  }
  return bin;
}

async function main(): Promise<number> {
  const maxExamples = option('max-examples', '25');
  const seed = option('seed', String(Date.now() % 100_000));
  const workers = option('workers', '1');
  let schemathesis: string | null = null;
  if (option('engine', 'schemathesis') === 'schemathesis') {
    try {
      schemathesis = ensureSchemathesis();
    } catch (error) {
      console.warn(
        `fuzz: ${(error as Error).message}\nfuzz: falling back to the built-in engine (same checks, own generator)`,
      );
    }
  }

  const dataDir = mkdtempSync(join(tmpdir(), 'fuzz-platform-'));
  const password = 'fuzz-admin-password-1';
  const config = loadConfig({
    NODE_ENV: 'development',
    PORT: '0',
    INTERNAL_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BOOTSTRAP_ADMIN_EMAIL: 'fuzz-admin@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: password,
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_BURST: '100000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  });
  const platform = await startPlatform({ config, contexts, logger: createLogger(config.logLevel) });
  try {
    const base = platform.publicUrl!;
    const login = await fetch(`${base}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'fuzz-admin@example.com', password }),
    });
    const cookie = /svc_token=([^;]+)/.exec(login.headers.get('set-cookie') ?? '');
    if (login.status !== 200 || !cookie) throw new Error(`login failed: ${login.status} ${await login.text()}`);
    const token = cookie[1];
    console.log(`platform at ${base}; fuzzing with ${maxExamples} examples per operation (seed ${seed})`);
    if (!schemathesis) {
      const document = await (await fetch(`${base}/api/v1/openapi.json`)).json();
      const started = Date.now();
      const result = await builtinFuzz(document, {
        baseUrl: base,
        token,
        examples: Number(maxExamples),
        seed: Number(seed),
        exclude: EXCLUDED,
      });
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `builtin fuzz: ${result.operations} operations, ${result.requests} requests in ${seconds} s; statuses ${JSON.stringify(result.byStatus)}`,
      );
      const unique = [...new Set(result.failures)];
      for (const failure of unique.slice(0, 50)) console.log(`FAIL ${failure}`);
      console.log(
        unique.length === 0
          ? 'builtin fuzz: no server error, every response conforms'
          : `builtin fuzz: ${unique.length} distinct failures`,
      );
      return unique.length === 0 ? 0 : 1;
    }
    const args = [
      'run',
      `${base}/api/v1/openapi.json`,
      '--base-url',
      base,
      '--experimental',
      'openapi-3.1',
      '--checks',
      'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
      '--hypothesis-max-examples',
      maxExamples,
      '--hypothesis-seed',
      seed,
      '--hypothesis-suppress-health-check',
      'all',
      '--workers',
      workers,
      '--header',
      `Authorization: Bearer ${token}`,
      ...EXCLUDED.flatMap((path) => ['--exclude-path', path]),
      '--no-color',
    ];
    const child = spawn(schemathesis, args, { stdio: 'inherit' });
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`fuzz: ${(error as Error).message}`);
    process.exit(2);
  },
);
