import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { contexts } from '../../../src/contexts';
import { signIn } from '../../support/auth';
import { startTestPlatform } from '../../support/platform';
import { TEST_SECRET_STORE_KEY, TEST_SIGNING_KEY } from '../../support/secrets';

const run = promisify(execFile);
const tsx = path.resolve('node_modules/.bin/tsx');

describe('ops projections status / rebuild', function () {
  this.timeout(120_000);
  let databaseUrl: string;
  let directoryBefore: unknown[];

  before(async () => {
    const t = await startTestPlatform();
    databaseUrl = t.platform.db.url;
    await signIn(t, { roles: ['operator'] });
    await signIn(t, { roles: ['reviewer'] });
    directoryBefore = await t.deps.knex('identity_users').select('*').orderBy('id');
    await t.close();
  });

  const ops = (...args: string[]) =>
    run(tsx, ['ops/cli.ts', ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, AUDIT_SIGNING_KEY: TEST_SIGNING_KEY, SECRET_STORE_KEY: TEST_SECRET_STORE_KEY, NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    });

  it('status lists every projector with its version, checkpoint and state', async () => {
    const { stdout } = await ops('projections', 'status');
    expect(stdout).to.match(/^head of the log: \d+\/\d+/);
    for (const projector of contexts.flatMap((c) => c.projectors ?? [])) {
      expect(stdout).to.match(new RegExp(`^${projector.name}\\s+${projector.version}\\s+\\d+/\\d+\\s+\\d+\\s+running`, 'm'));
    }
  });

  it('rebuild --all replays every read model to the same content and reports events/s', async () => {
    const { stdout } = await ops('projections', 'rebuild', '--all');
    for (const projector of contexts.flatMap((c) => c.projectors ?? [])) {
      expect(stdout).to.match(new RegExp(`${projector.name}: \\d+ events in [\\d.]+ s \\(\\d+ events/s\\)`));
    }
    const t = await import('knex');
    const knex = t.default({ client: 'pg', connection: databaseUrl });
    try {
      expect(await knex('identity_users').select('*').orderBy('id')).to.deep.equal(directoryBefore);
    } finally {
      await knex.destroy();
    }
  });

  it('status lists dead letters with what failed and how to retry', async () => {
    const t = await import('knex');
    const knex = t.default({ client: 'pg', connection: databaseUrl });
    try {
      const event = await knex('events').orderBy('transaction_id').first();
      await knex('projection_dead_letters').insert({
        projector: 'identity_user_directory', commit_position: event.transaction_id, prepare_position: event.position, event_id: event.event_id,
        stream_id: event.stream_id, event_type: event.type, error: 'column "x" does not exist', attempts: 5,
      });
      const { stdout } = await ops('projections', 'status');
      expect(stdout).to.match(/dead letters \(1\): .*ops projections retry <name>/);
      expect(stdout).to.include(`${event.type} ${event.event_id} in ${event.stream_id} after 5 attempts: column "x" does not exist`);
    } finally {
      await knex('projection_dead_letters').delete();
      await knex.destroy();
    }
  });

  it('refuses an unknown projector name and names the known ones', async () => {
    const error = await ops('projections', 'rebuild', 'no_such_projection').catch((e) => e);
    expect(error.code).to.equal(1);
    expect(error.stderr).to.match(/unknown projector no_such_projection; known: /);
  });
});
