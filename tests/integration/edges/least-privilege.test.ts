import { expect } from 'chai';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * The platform runs as a role that owns its tables but is not superuser and holds only
 * SELECT and INSERT on `events`: a bug in the application cannot rewrite history.
 */
describe('least privilege: the platform database role', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform();
    await signIn(t); // appends events as the platform role
  });
  after(() => t?.close());

  const refusal = async (sql: string) => {
    try {
      await t.deps.knex.raw(sql);
      return 'allowed';
    } catch (error) {
      return `${(error as { code?: string }).code} ${(error as Error).message.split(' - ').pop()}`;
    }
  };

  it('connects as platform_app, which is not superuser and cannot create roles or databases', async () => {
    expect(new URL(t.platform.db.url).username).to.equal('platform_app');
    const { rows } = await t.deps.knex.raw(
      'SELECT current_user AS who, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user',
    );
    expect(rows[0]).to.deep.equal({ who: 'platform_app', rolsuper: false, rolcreaterole: false, rolcreatedb: false });
  });

  it('holds SELECT and INSERT on events and no UPDATE, DELETE or TRUNCATE: the database refuses them by privilege, before the trigger', async () => {
    const { rows } = await t.deps.knex.raw(
      "SELECT p AS privilege, has_table_privilege(current_user, 'events', p) AS held FROM unnest(ARRAY['SELECT','INSERT','UPDATE','DELETE','TRUNCATE']) AS p",
    );
    expect(
      Object.fromEntries(rows.map((r: { privilege: string; held: boolean }) => [r.privilege, r.held])),
    ).to.deep.equal({ SELECT: true, INSERT: true, UPDATE: false, DELETE: false, TRUNCATE: false });
    expect(await refusal("UPDATE events SET type = 'Rewritten'")).to.match(/^42501 permission denied for table events/);
    expect(await refusal('DELETE FROM events')).to.match(/^42501 permission denied for table events/);
    expect(await refusal('TRUNCATE events')).to.match(/^42501 permission denied for table events/);
    expect(await refusal('ALTER TABLE events DISABLE TRIGGER events_no_update_delete')).to.match(
      /^42501 must be owner of table events/,
    );
    expect(Number((await t.deps.knex('events').count<{ count: string }[]>('* as count'))[0].count)).to.be.greaterThan(
      0,
    );
  });

  it('owns every other platform table (read models included), so projections can rebuild them', async () => {
    const { rows } = await t.deps.knex.raw(
      "SELECT tablename, tableowner FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    const notOwned = rows
      .filter((r: { tablename: string; tableowner: string }) => r.tableowner !== 'platform_app')
      .map((r: { tablename: string }) => r.tablename);
    expect(notOwned).to.deep.equal(['events']);
    expect(rows.length).to.be.greaterThan(5);
    await t.deps.knex.raw('CREATE TABLE edges_scratch (id int); DROP TABLE edges_scratch');
  });

  it('DATABASE_APP_ROLE=none connects as given', async () => {
    const plain = await startTestPlatform({ env: { DATABASE_APP_ROLE: 'none' } });
    try {
      const { rows } = await plain.deps.knex.raw('SELECT rolsuper FROM pg_roles WHERE rolname = current_user');
      expect(rows[0].rolsuper).to.equal(true);
    } finally {
      await plain.close();
    }
  });
});
