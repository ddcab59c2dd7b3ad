import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import sinon from 'sinon';
import { secretCleanupReactor } from '../../../commands/connectors/secret-cleanup';
import { runReaction } from '../../../src/platform/reactors/reaction';
import { connectorAggregate } from '../../../streams/connectors/connector';
import { CONNECTORS_TABLE } from '../../../projections/connectors/connectors-read-model';
import { signIn, type Session } from '../../support/auth';
import type { TestPlatform } from '../../support/platform';
import { createSourceDatabase, type SourceDatabase, startCapturingPlatform } from './support';

/**
 * Connectors against the machine's real PostgreSQL: a source database with a
 * read-only and a read-write role made here, egress admitted for 127.0.0.0/8 only.
 */
describe('connectors over PostgreSQL', function () {
  // Generous: on a shared machine another cluster user's long transaction delays projections.
  this.timeout(60_000);
  let t: TestPlatform & { logs: string[] };
  let source: SourceDatabase;
  let admin: Session;
  let approver: Session;
  let proposer: Session;
  let operator: Session;
  let tenantId: string;

  before(async function () {
    // The first file of a run also builds the template database; the machine is shared.
    this.timeout(120_000);
    source = await createSourceDatabase();
    // PROJECTION_WAIT_MS: read-your-writes on a machine shared by many test runs.
    t = await startCapturingPlatform({
      PROJECTION_WAIT_MS: '20000',
      CONNECTOR_EGRESS_ALLOW: '127.0.0.0/8',
      CONNECTOR_STATEMENT_TIMEOUT_MS: '1500',
      CONNECTOR_PREVIEW_ROWS: '5',
      CONNECTOR_ROW_CAP: '100',
    });
    tenantId = randomUUID();
    admin = await signIn(t, { roles: ['admin'], tenantId });
    approver = await signIn(t, { roles: ['admin'], tenantId });
    proposer = await signIn(t, { roles: ['power_user'], tenantId });
    operator = await signIn(t, { roles: ['operator'], tenantId });
  });
  after(async () => {
    await t?.close();
    await source?.drop();
  });

  const config = () => ({ host: source.host, port: source.port, database: source.database, sslmode: 'disable' });
  const register = (key: string, extra: Record<string, unknown> = {}) =>
    t.api.post(
      '/connectors',
      {
        connector_key: key,
        display_name: `Source ${key}`,
        description: 'wells',
        connector_type: 'postgresql',
        config: config(),
        data_classification: 'internal',
        ...extra,
      },
      admin.headers,
    );
  const eventsText = async () => JSON.stringify(await t.deps.knex('events').select('type', 'data', 'metadata'));

  async function activeConnector(key: string) {
    expect((await register(key)).status).to.equal(201);
    const put = await t.api.put(`/connectors/${key}/credential`, { credential: source.readOnly }, admin.headers);
    expect(put.status, put.text).to.equal(200);
    expect(put.body.status, JSON.stringify(put.body.last_probe)).to.equal('active');
    return put.body;
  }

  async function approvedExposure(key: string, ekey: string, sql: string, parameters: unknown[] = []) {
    const drafted = await t.api.post(
      `/connectors/${key}/exposures`,
      { ekey, description: 'wells of an operator', sql, parameters },
      proposer.headers,
    );
    expect(drafted.status, drafted.text).to.equal(201);
    expect((await t.api.post(`/connectors/${key}/exposures/${ekey}/submit`, {}, proposer.headers)).status).to.equal(
      200,
    );
    const approved = await t.api.post(`/connectors/${key}/exposures/${ekey}/approve`, {}, approver.headers);
    expect(approved.status, approved.text).to.equal(200);
    return approved.body;
  }

  it('lists both engines with capabilities, a JSON Schema of the config and the credential fields', async () => {
    const response = await t.api.get('/connectors/engines', proposer.headers);
    expect(response.status).to.equal(200);
    const byKey = Object.fromEntries(response.body.map((e: { key: string }) => [e.key, e]));
    expect(Object.keys(byKey).sort()).to.deep.equal(['postgresql', 'snowflake']);
    expect(byKey.postgresql.credential_fields).to.deep.equal(['password', 'username']);
    expect(byKey.snowflake.credential_fields).to.deep.equal(['private_key', 'username']);
    expect(byKey.postgresql.config_schema.properties.sslmode.enum).to.deep.equal([
      'disable',
      'require',
      'verify-ca',
      'verify-full',
    ]);
    expect(byKey.postgresql.config_schema.properties.port.default).to.equal(5432);
    expect(byKey.snowflake.config_schema.required).to.include.members(['account', 'warehouse', 'database', 'schema']);
    expect(byKey.postgresql.capabilities.read_only).to.match(/READ ONLY/);
  });

  it('operators have no connector access and power users cannot register connectors', async () => {
    expect((await t.api.get('/connectors', operator.headers)).status).to.equal(403);
    expect((await t.api.post('/connectors', { connector_key: 'x' }, proposer.headers)).status).to.equal(403);
  });

  it('a config failing the engine schema answers 422 config_invalid per field and records nothing', async () => {
    const response = await register('bad-config', {
      config: { host: source.host, port: 'five', sslmode: 'sometimes' },
    });
    expect(response.status).to.equal(422);
    expect(response.body.detail.error).to.equal('config_invalid');
    expect(Object.keys(response.body.detail.fields).sort()).to.deep.equal(['database', 'port', 'sslmode']);
    expect((await t.api.get('/connectors/bad-config', admin.headers)).status).to.equal(404);
  });

  it('a destination outside the allow-list is refused as egress_denied and audited', async () => {
    const response = await register('private-net', { config: { ...config(), host: '10.1.2.3' } });
    expect(response.status).to.equal(422);
    expect(response.body.detail.error).to.equal('egress_denied');
    expect(response.body.detail.reason).to.match(/private/);
    const audited = await t.deps
      .knex('events')
      .where({ type: 'ConnectorEgressDenied' })
      .whereRaw(`data->>'connectorKey' = 'private-net'`);
    expect(audited).to.have.length(1);
    expect(audited[0].metadata.action).to.equal('connector.egress_denied');
    expect((await t.api.get('/connectors/private-net', admin.headers)).status).to.equal(404);
  });

  it('registers unconfigured and refuses a duplicate key in the tenant with 409', async () => {
    const created = await register('wells-db');
    expect(created.status).to.equal(201);
    expect(created.body).to.include({
      connector_key: 'wells-db',
      status: 'unconfigured',
      has_credential: false,
      read_only_verified_at: null,
      last_probe: null,
      connector_type: 'postgresql',
    });
    expect((await register('wells-db')).status).to.equal(409);
    const other = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    expect((await t.api.get('/connectors/wells-db', other.headers)).status).to.equal(404);
  });

  it('a credential with unknown or missing fields is refused naming fields only', async () => {
    await register('cred-check');
    const response = await t.api.put(
      '/connectors/cred-check/credential',
      { credential: { username: 'x', token: 'planted-token-value' } },
      admin.headers,
    );
    expect(response.status).to.equal(422);
    expect(response.body.detail).to.deep.include({ error: 'credential_invalid', fields: ['password', 'token'] });
    expect(response.text).not.to.contain('planted-token-value');
  });

  it('a read-write credential fails the probe with readable reasons and is never verified', async () => {
    await register('rw-source');
    const response = await t.api.put(
      '/connectors/rw-source/credential',
      { credential: source.readWrite },
      admin.headers,
    );
    expect(response.status).to.equal(200);
    expect(response.body.status).to.equal('probe_failed');
    expect(response.body.read_only_verified_at).to.equal(null);
    expect(response.body.last_probe.reasons.join('\n')).to.match(/can write to table src\.wells/);
    expect(response.text).not.to.contain(source.readWrite.password);
  });

  it('a read-only credential is proved, then the schema is discovered; the password is nowhere in events, logs or responses', async () => {
    const body = await activeConnector('ro-source');
    expect(body.read_only_verified_at).to.be.a('string');
    expect(body.last_probe.ok).to.equal(true);
    const schema = await t.api.get('/connectors/ro-source/schema', proposer.headers);
    expect(schema.status).to.equal(200);
    const wells = schema.body.tables.find(
      (x: { schema: string; name: string }) => x.schema === 'src' && x.name === 'wells',
    );
    expect(wells.columns.map((c: { name: string }) => c.name)).to.deep.equal([
      'api',
      'name',
      'operator_id',
      'spud_date',
      'depth_ft',
    ]);
    expect(wells.columns[3]).to.deep.equal({ name: 'spud_date', type: 'date', nullable: true });
    const again = await t.api.post('/connectors/ro-source/probe', {}, admin.headers);
    expect(again.body.probe.ok).to.equal(true);
    expect(await eventsText()).not.to.contain(source.readOnly.password);
    expect(t.logs.join('')).not.to.contain(source.readOnly.password);
    expect(t.logs.join('')).not.to.contain(source.readWrite.password);
    expect(JSON.stringify([body, schema.body, again.body])).not.to.contain(source.readOnly.password);
    const stored = await t.deps.knex('secrets').select('ciphertext');
    expect(stored.map((r) => r.ciphertext.toString('latin1')).join('')).not.to.contain(source.readOnly.password);
  });

  /** The connector's log as the secret-cleanup reactor sees it, and the secret its record names now. */
  async function credentialLog(key: string) {
    const id = (
      await t.deps.knex(CONNECTORS_TABLE).where({ tenant_id: tenantId, connector_key: key }).first('connector_id')
    ).connector_id as string;
    const events = await t.deps.store.readStream(connectorAggregate.stream(tenantId, id));
    const sets = events.filter((e) => e.type === 'CredentialSet');
    return { sets, recorded: (sets[sets.length - 1].data as { secretName: string }).secretName };
  }
  const secretNames = (key: string) =>
    t.deps.knex('secrets').where('name', 'like', `connectors/${tenantId}/${key}/%`).pluck('name');
  /** What the reactor runner does on the leader: every CredentialSet, in log order, through the reaction. */
  async function runSecretCleanup(key: string) {
    for (const event of (await credentialLog(key)).sets) await runReaction(secretCleanupReactor, event, t.deps);
  }

  it('a credential change clears read_only_verified_at and re-probes; the replaced secret goes only by reaction', async () => {
    await activeConnector('switch-source');
    const response = await t.api.put(
      '/connectors/switch-source/credential',
      { credential: source.readWrite },
      admin.headers,
    );
    expect(response.body).to.include({ status: 'probe_failed', read_only_verified_at: null });
    const { recorded, sets: before } = await credentialLog('switch-source');
    // The leader's reactor runner may have reacted already. It records before it deletes, so a
    // secret gone before this read is a reaction already in the log when the log is read next.
    const left = await secretNames('switch-source');
    const reacted = (await t.deps.store.readStream(before[0].stream)).filter(
      (e) => e.type === 'CredentialSecretDeleted',
    ).length;
    expect(left, 'the PUT keeps the recorded secret').to.include(recorded);
    expect(
      left.length === 2 || reacted === 1,
      `the PUT itself deletes nothing (${left.length} left, ${reacted} deletions recorded)`,
    ).to.equal(true);
    await runSecretCleanup('switch-source');
    await runSecretCleanup('switch-source'); // a replay after a crash deletes nothing more and records nothing twice
    expect(await secretNames('switch-source'), 'the replaced credential is removed').to.deep.equal([recorded]);
    const { sets } = await credentialLog('switch-source');
    expect(
      (await t.deps.store.readStream(sets[0].stream)).filter((e) => e.type === 'CredentialSecretDeleted'),
    ).to.have.length(1);
  });

  it('the same PUT sent twice with one Idempotency-Key records one credential and keeps its secret', async () => {
    expect((await register('retried-put')).status).to.equal(201);
    const headers = { ...admin.headers, 'idempotency-key': `put-${randomUUID()}` };
    const first = await t.api.put('/connectors/retried-put/credential', { credential: source.readOnly }, headers);
    const second = await t.api.put('/connectors/retried-put/credential', { credential: source.readOnly }, headers);
    expect([first.status, second.status]).to.deep.equal([200, 200]);
    const { sets, recorded } = await credentialLog('retried-put');
    expect(sets).to.have.length(1);
    await runSecretCleanup('retried-put');
    expect(await secretNames('retried-put')).to.deep.equal([recorded]);
    const probe = await t.api.post('/connectors/retried-put/probe', {}, admin.headers);
    expect(probe.body.probe.ok, JSON.stringify(probe.body)).to.equal(true);
    expect(probe.body.status).to.equal('active');
  });

  it('concurrent PUTs never leave the connector without its recorded secret', async () => {
    await activeConnector('raced-put');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.api.put('/connectors/raced-put/credential', { credential: source.readOnly }, admin.headers),
      ),
    );
    expect(
      answers.map((a) => a.status).filter((s) => s !== 200 && s !== 409),
      'each PUT records its credential or answers 409',
    ).to.deep.equal([]);
    await runSecretCleanup('raced-put');
    const { recorded } = await credentialLog('raced-put');
    expect(await secretNames('raced-put')).to.include(recorded);
    const probe = await t.api.post('/connectors/raced-put/probe', {}, admin.headers);
    expect(probe.body.probe.ok, JSON.stringify(probe.body)).to.equal(true);
    expect(probe.body.status).to.equal('active');
  });

  it('a PUT whose append fails leaves the connector on its recorded secret', async () => {
    await activeConnector('failed-put');
    const { recorded } = await credentialLog('failed-put');
    const append = t.deps.store.append.bind(t.deps.store);
    sinon
      .stub(t.deps.store, 'append')
      .callsFake((stream, events, options) =>
        stream.startsWith('connectors.connector-')
          ? Promise.reject(new Error('database gone'))
          : append(stream, events, options),
      );
    try {
      expect(
        (await t.api.put('/connectors/failed-put/credential', { credential: source.readWrite }, admin.headers)).status,
      ).to.equal(500);
    } finally {
      sinon.restore();
    }
    expect((await credentialLog('failed-put')).recorded).to.equal(recorded);
    expect(await secretNames('failed-put')).to.include(recorded);
    const probe = await t.api.post('/connectors/failed-put/probe', {}, admin.headers);
    expect(probe.body.probe.ok, JSON.stringify(probe.body)).to.equal(true);
  });

  it('POST /connectors/validate answers errors with positions for editors', async () => {
    const ok = await t.api.post(
      '/connectors/validate',
      { sql: 'select api from src.wells where operator_id = :op' },
      proposer.headers,
    );
    expect(ok.body).to.deep.include({ valid: true, parameters: ['op'], errors: [] });
    const bad = await t.api.post('/connectors/validate', { sql: 'select 1;\nselect pg_sleep(5)' }, proposer.headers);
    expect(bad.body.valid).to.equal(false);
    expect(bad.body.errors.map((e: { code: string }) => e.code)).to.include.members([
      'multiple_statements',
      'function_refused',
    ]);
    const sleep = bad.body.errors.find((e: { code: string }) => e.code === 'function_refused');
    expect(sleep.position).to.deep.equal({ offset: 17, line: 2, column: 8 });
  });

  it('exposure lifecycle: draft, submit, approval pins the SQL hash, the author cannot approve, approved cannot be deleted', async () => {
    await activeConnector('life');
    const sql = 'select api, name from src.wells where operator_id = :op order by api';
    const parameters = [{ name: 'op', type: 'integer', description: 'operator id' }];
    const drafted = await t.api.post(
      '/connectors/life/exposures',
      { ekey: 'by_operator', sql, parameters },
      proposer.headers,
    );
    expect(drafted.status).to.equal(201);
    expect(drafted.body).to.include({ status: 'draft', approved_sql_hash: null, tool_name: 'life__by_operator' });
    expect(
      (await t.api.post('/connectors/life/exposures', { ekey: 'by_operator', sql, parameters }, proposer.headers))
        .status,
    ).to.equal(409);
    expect((await t.api.post('/connectors/life/exposures/by_operator/approve', {}, approver.headers)).status).to.equal(
      409,
    );
    await t.api.post('/connectors/life/exposures/by_operator/submit', {}, proposer.headers);
    expect((await t.api.post('/connectors/life/exposures/by_operator/approve', {}, proposer.headers)).status).to.equal(
      403,
    );
    const self = await signIn(t, { roles: ['admin'], tenantId });
    await t.api.patch('/connectors/life/exposures/by_operator', { description: 'edited by an admin' }, self.headers);
    await t.api.post('/connectors/life/exposures/by_operator/submit', {}, self.headers);
    const own = await t.api.post('/connectors/life/exposures/by_operator/approve', {}, self.headers);
    expect(own.status).to.equal(409);
    expect(own.body.detail).to.match(/approver must differ/);
    const approved = await t.api.post('/connectors/life/exposures/by_operator/approve', {}, approver.headers);
    expect(approved.body.status).to.equal('approved');
    expect(approved.body.approved_sql_hash).to.equal(createHash('sha256').update(sql).digest('hex'));
    expect((await t.api.delete('/connectors/life/exposures/by_operator', proposer.headers)).status).to.equal(409);
    expect((await t.api.delete('/connectors/life', admin.headers)).status).to.equal(409);
    const edited = await t.api.patch(
      '/connectors/life/exposures/by_operator',
      { sql: `${sql} limit 10` },
      proposer.headers,
    );
    expect(edited.body).to.include({ status: 'draft', approved_sql_hash: null });
    expect(edited.body.sql_hash).to.equal(createHash('sha256').update(`${sql} limit 10`).digest('hex'));
    expect((await t.api.get('/connectors/life/exposures?status=draft', proposer.headers)).body).to.have.length(1);
    expect((await t.api.delete('/connectors/life/exposures/by_operator', proposer.headers)).status).to.equal(204);
    expect((await t.api.delete('/connectors/life', admin.headers)).status).to.equal(204);
    expect(
      await t.deps.knex('secrets').where('name', 'like', `connectors/${tenantId}/life/%`).pluck('name'),
    ).to.deep.equal([]);
    expect((await register('life')).status).to.equal(201);
  });

  it('an exposure whose SQL fails the validator or misdeclares parameters is refused with 422', async () => {
    await register('refusals');
    const dml = await t.api.post(
      '/connectors/refusals/exposures',
      { ekey: 'dml', sql: 'with d as (delete from src.wells returning *) select * from d' },
      proposer.headers,
    );
    expect(dml.status).to.equal(422);
    expect(dml.body.detail.error).to.equal('sql_invalid');
    const params = await t.api.post(
      '/connectors/refusals/exposures',
      { ekey: 'p', sql: 'select 1 where :a = :b', parameters: [{ name: 'a', type: 'integer' }] },
      proposer.headers,
    );
    expect(params.body.detail).to.deep.include({ error: 'parameters_mismatch', undeclared: ['b'], unused: [] });
  });

  it('preview is capped; an approved exposure is an agent tool and runs through the internal execute route', async () => {
    await activeConnector('agents');
    const sql = 'select api, name, spud_date from src.wells where operator_id = :op order by api';
    await approvedExposure('agents', 'wells_of', sql, [{ name: 'op', type: 'integer' }]);
    const preview = await t.api.post(
      '/connectors/agents/exposures/wells_of/preview',
      { params: { op: 1 } },
      proposer.headers,
    );
    expect(preview.status, preview.text).to.equal(200);
    expect(preview.body).to.include({ row_count: 5, truncated: true });
    expect(preview.body.columns.map((c: { name: string }) => c.name)).to.deep.equal(['api', 'name', 'spud_date']);
    expect(preview.body.rows[0]).to.deep.equal(['42-000001', 'Well 1', '2020-01-02T00:00:00.000Z']);

    const caller = { tenantId, userId: operator.userId, permissions: [] };
    const tools = await t.deps.agentTools.list(caller);
    const tool = tools.find((x) => x.name === 'agents__wells_of');
    expect(tool, tools.map((x) => x.name).join()).to.exist;
    expect(tool!.parameters.safeParse({ op: 'one' }).success).to.equal(false);
    const output = await tool!.run({ op: 2 }, caller);
    expect(output.result).to.deep.include({ kind: 'table', columns: ['api', 'name', 'spud_date'] });
    expect((output.result as { rows: unknown[] }).rows).to.have.length(60);
    expect(output.content.split('\n')[0]).to.equal('api\tname\tspud_date');

    const headers = { 'x-tenant-id': tenantId };
    const bindings = await t.internal.get('/connectors/bindings', headers);
    expect(bindings.body.tools.map((b: { name: string }) => b.name)).to.include('agents__wells_of');
    expect(bindings.body.tools[0].parameters.properties.op.type).to.equal('integer');
    const executed = await t.internal.post(
      '/connectors/agents/exposures/wells_of/execute',
      { params: { op: 3 } },
      headers,
    );
    expect(executed.status, executed.text).to.equal(200);
    expect(executed.body.row_count).to.equal(60);
    expect(
      (await t.internal.post('/connectors/agents/exposures/wells_of/execute', { params: { op: 'x' } }, headers)).status,
    ).to.equal(422);
    expect(
      (await t.internal.post('/connectors/agents/exposures/wells_of/execute', { params: { op: 3 } })).status,
    ).to.equal(401);
    expect((await t.internal.get('/connectors/status')).status).to.equal(401);
    expect((await t.internal.get('/connectors/agents/status', headers)).body.status).to.equal('active');
    expect((await t.api.get('/connectors/bindings', admin.headers)).status).to.equal(404);
    expect(
      (await t.api.post('/connectors/agents/exposures/wells_of/execute', { params: { op: 3 } }, admin.headers)).status,
    ).to.equal(404);
    const otherTenant = await t.internal.post(
      '/connectors/agents/exposures/wells_of/execute',
      { params: { op: 3 } },
      { 'x-tenant-id': randomUUID() },
    );
    expect(otherTenant.status).to.equal(404);
  });

  it('an edited exposure stops being a tool and cannot execute until approved again', async () => {
    await activeConnector('rehash');
    await approvedExposure('rehash', 'all_wells', 'select api from src.wells');
    await t.api.patch(
      '/connectors/rehash/exposures/all_wells',
      { sql: 'select name from src.wells' },
      proposer.headers,
    );
    const tools = await t.deps.agentTools.list({ tenantId, userId: operator.userId, permissions: [] });
    expect(tools.map((x) => x.name)).not.to.include('rehash__all_wells');
    const executed = await t.internal.post(
      '/connectors/rehash/exposures/all_wells/execute',
      {},
      { 'x-tenant-id': tenantId },
    );
    expect(executed.status).to.equal(409);
  });

  it('a query slower than statement_timeout is cut and answered, never holding the request', async () => {
    await activeConnector('slow');
    await approvedExposure('slow', 'cross', 'select count(*) from src.big a, src.big b, src.big c');
    const started = Date.now();
    const response = await t.internal.post('/connectors/slow/exposures/cross/execute', {}, { 'x-tenant-id': tenantId });
    expect(response.status).to.equal(422);
    expect(response.body.detail.error).to.equal('query_failed');
    expect(response.body.detail.reason).to.match(/statement timeout/);
    expect(Date.now() - started).to.be.lessThan(6000);
  });

  it('disable removes the tools and blocks runs; enable goes through a fresh probe', async () => {
    await activeConnector('toggle');
    await approvedExposure('toggle', 'count_wells', 'select count(*) as wells from src.wells');
    const disabled = await t.api.post('/connectors/toggle/disable', {}, admin.headers);
    expect(disabled.body.status).to.equal('disabled');
    const tools = await t.deps.agentTools.list({ tenantId, userId: operator.userId, permissions: [] });
    expect(tools.map((x) => x.name)).not.to.include('toggle__count_wells');
    expect(
      (await t.internal.post('/connectors/toggle/exposures/count_wells/execute', {}, { 'x-tenant-id': tenantId }))
        .status,
    ).to.equal(409);
    expect((await t.api.post('/connectors/toggle/probe', {}, admin.headers)).status).to.equal(409);
    const enabled = await t.api.post('/connectors/toggle/enable', {}, admin.headers);
    expect(enabled.body.status).to.equal('active');
    expect(enabled.body.read_only_verified_at).not.to.equal(disabled.body.read_only_verified_at);
    const run = await t.internal.post(
      '/connectors/toggle/exposures/count_wells/execute',
      {},
      { 'x-tenant-id': tenantId },
    );
    expect(run.body.rows).to.deep.equal([['300']]);
  });

  it('a config change re-probes', async () => {
    await activeConnector('reconf');
    const changed = await t.api.patch(
      '/connectors/reconf',
      { config: { database: 'no_such_database_here' } },
      admin.headers,
    );
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.status).to.equal('probe_failed');
    expect(changed.body.last_probe.reasons[0]).to.match(/no_such_database_here/);
    expect(changed.body.last_probe.reasons[0]).not.to.contain(source.readOnly.password);
  });
});
