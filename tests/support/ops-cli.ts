import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEST_EVIDENCE_KEY, TEST_JWT_SECRET, TEST_SECRET_STORE_KEY, TEST_SIGNING_KEY } from './secrets';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

/** The environment an `ops` child process needs to work on the test database at `databaseUrl`. */
export function opsEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
    EVIDENCE_SIGNING_KEY: TEST_EVIDENCE_KEY,
    JWT_SECRET: TEST_JWT_SECRET,
    SECRET_STORE_KEY: TEST_SECRET_STORE_KEY,
    BCRYPT_COST: '10',
    BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap-password-1',
    LOG_LEVEL: 'silent',
  };
}

/** `npm run ops -- …args` as a child process: its output, exit code and how long it took. */
export async function runOps(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ stdout: string; stderr: string; code: number; seconds: number }> {
  const started = Date.now();
  try {
    const { stdout, stderr } = await run(path.join(root, 'node_modules/.bin/tsx'), ['ops/cli.ts', ...args], {
      cwd: root,
      env,
    });
    return { stdout, stderr, code: 0, seconds: (Date.now() - started) / 1000 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code, seconds: (Date.now() - started) / 1000 };
  }
}
