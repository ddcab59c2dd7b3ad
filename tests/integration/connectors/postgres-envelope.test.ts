import { expect } from 'chai';
import type { EngineRun } from '../../../commands/connectors/engines/engine';
import { postgresqlEngine } from '../../../commands/connectors/engines/postgresql';
import { createSourceDatabase, type SourceDatabase } from './support';

/**
 * The execution envelope of engine R on the real server, below the validator: what holds
 * even for SQL the validator would never let through, and even with a credential that can write.
 */
describe('PostgreSQL execution envelope', function () {
  this.timeout(20_000);
  let source: SourceDatabase;
  before(async () => {
    source = await createSourceDatabase();
  });
  after(() => source?.drop());

  const run = (credential: { username: string; password: string }): EngineRun => ({
    config: { host: source.host, port: source.port, database: source.database, sslmode: 'disable' },
    credential,
    host: source.host,
    address: '127.0.0.1',
    limits: { connectTimeoutMs: 3000, statementTimeoutMs: 1200 },
  });

  it('sets statement_timeout and idle_in_transaction_session_timeout at connection start, inside a READ ONLY transaction', async () => {
    const result = await postgresqlEngine.execute(
      run(source.readOnly),
      "select current_setting('statement_timeout') as st, current_setting('idle_in_transaction_session_timeout') as idle, current_setting('transaction_read_only') as ro",
      [],
      10,
    );
    expect(result.rows).to.deep.equal([['1200ms', '1200ms', 'on']]);
  });

  it('a write is refused by the read-only transaction even for a role that may write', async () => {
    let error: Error | undefined;
    await postgresqlEngine
      .execute(run(source.readWrite), "select nextval('src.counter')", [], 10)
      .catch((e) => (error = e));
    expect(error?.message).to.match(/read-only transaction/);
  });

  it('no session state is carried from one run to the next', async () => {
    await postgresqlEngine.execute(
      run(source.readOnly),
      "select set_config('search_path', 'src', false), set_config('application_name', 'leaked', false)",
      [],
      10,
    );
    const next = await postgresqlEngine.execute(
      run(source.readOnly),
      "select current_setting('search_path'), current_setting('application_name')",
      [],
      10,
    );
    expect(next.rows).to.deep.equal([['"$user", public', 'compliance-platform-connector']]);
  });

  it('binds values instead of splicing them', async () => {
    const result = await postgresqlEngine.execute(
      run(source.readOnly),
      'select count(*)::int as n from src.wells where name = $1',
      ["x' or '1'='1"],
      10,
    );
    expect(result.rows).to.deep.equal([[0]]);
  });

  it('the row cap is applied by the server and reported as truncated', async () => {
    const result = await postgresqlEngine.execute(
      run(source.readOnly),
      'select api from src.wells order by api;',
      [],
      7,
    );
    expect(result.rows).to.have.length(7);
    expect(result.rows[6]).to.deep.equal(['42-000007']);
    expect(result.truncated).to.equal(true);
  });

  it('the probe names each reason a read-write role is refused', async () => {
    const outcome = await postgresqlEngine.probe(run(source.readWrite));
    expect(outcome.ok).to.equal(false);
    expect(outcome.reasons).to.deep.equal(['can write to table src.wells (INSERT/UPDATE/DELETE/TRUNCATE)']);
    await source.admin(
      `alter role ${source.readWrite.username} createdb; grant pg_signal_backend to ${source.readWrite.username}; create table public.owned_by_rw (a int); alter table public.owned_by_rw owner to ${source.readWrite.username}`,
    );
    const worse = await postgresqlEngine.probe(run(source.readWrite));
    expect(worse.reasons).to.include.members([
      `role ${source.readWrite.username} can create databases`,
      'role is a member of pg_signal_backend',
      'owns relation public.owned_by_rw',
    ]);
    expect((await postgresqlEngine.probe(run(source.readOnly))).ok).to.equal(true);
  });
});
