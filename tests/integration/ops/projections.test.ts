import { expect } from 'chai';
import { contexts } from '../../../src/contexts';
import { signIn } from '../../support/auth';
import { startTestPlatform } from '../../support/platform';
import { opsEnv, runOps } from '../../support/ops-cli';

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
    // Paced lanes (the audit index, the compliance dashboard) may not have run yet: let them hold the log before the status is read.
    for (const name of ['audit_event_index', 'compliance_dashboard'])
      expect(await t.deps.projections.catchUp(name, 30_000)).to.equal(true);
    await t.close();
  });

  const ops = (...args: string[]) => runOps(opsEnv(databaseUrl), ...args);

  it('status lists every projector with its version, checkpoint and state', async () => {
    const { stdout, code } = await ops('projections', 'status');
    expect(code).to.equal(0);
    expect(stdout).to.match(/^head of the log: \d+\/\d+/);
    expect(stdout.trimEnd().split('\n').at(-1)).to.match(/^\d+ projectors, 0 failing, 0 dead letters$/);
    for (const projector of contexts.flatMap((c) => c.projectors ?? [])) {
      // An inline projector's checkpoint only says where its last rebuild ended (-1/-1: before any event).
      const state =
        projector.consistency === 'inline' ? '-?\\d+/-?\\d+\\s+\\d+\\s+inline' : '\\d+/\\d+\\s+\\d+\\s+running';
      expect(stdout).to.match(new RegExp(`^${projector.name}\\s+${projector.version}\\s+${state}`, 'm'));
    }
  });

  it('rebuild --all replays every read model to the same content and reports events/s', async () => {
    const { stdout, code } = await ops('projections', 'rebuild', '--all');
    expect(code).to.equal(0);
    expect(stdout.trimEnd().split('\n').at(-1)).to.match(/^rebuilt \d+ projectors: \d+ events in [\d.]+ s$/);
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
        projector: 'identity_user_directory',
        commit_position: event.transaction_id,
        prepare_position: event.position,
        event_id: event.event_id,
        stream_id: event.stream_id,
        event_type: event.type,
        error: 'column "x" does not exist',
        attempts: 5,
      });
      const { stdout, code } = await ops('projections', 'status');
      // Done, but look: exit 2 while a dead letter is open.
      expect(code).to.equal(2);
      expect(stdout.trimEnd().split('\n').at(-1)).to.match(/, 1 dead letter$/);
      expect(stdout).to.match(/dead letters \(1\): .*ops projections retry <name>/);
      expect(stdout).to.include(
        `${event.type} ${event.event_id} in ${event.stream_id} after 5 attempts: column "x" does not exist`,
      );
    } finally {
      await knex('projection_dead_letters').delete();
      await knex.destroy();
    }
  });

  it('refuses an unknown projector name and names the known ones', async () => {
    const error = await ops('projections', 'rebuild', 'no_such_projection');
    expect(error.code).to.equal(1);
    expect(error.stderr).to.match(/unknown projector no_such_projection; known: /);
  });
});
