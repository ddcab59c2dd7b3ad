import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import sinon from 'sinon';
import snowflake from 'snowflake-sdk';
import type { EngineRun } from '../../../commands/connectors/engines/engine';
import { snowflakeEngine } from '../../../commands/connectors/engines/snowflake';

/** Engine W at the snowflake-sdk boundary: what the driver is asked to do, and what we make of its answers. */
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

type Answer = { rows?: Record<string, unknown>[]; columns?: string[]; error?: Error };

function fakeDriver(answer: (sql: string) => Answer, options: { hangOnConnect?: boolean } = {}) {
  const executed: { sqlText: string; binds?: unknown; parameters?: Record<string, unknown> }[] = [];
  const connection: { connectAsync: sinon.SinonSpy; execute: sinon.SinonSpy; destroy: sinon.SinonSpy } = {
    connectAsync: sinon.spy((): Promise<unknown> =>
      options.hangOnConnect ? new Promise(() => undefined) : Promise.resolve(connection),
    ),
    execute: sinon.spy(
      (o: {
        sqlText: string;
        binds?: unknown;
        parameters?: Record<string, unknown>;
        complete: (e: Error | undefined, s: unknown, r?: unknown[]) => void;
      }) => {
        executed.push({ sqlText: o.sqlText, binds: o.binds, parameters: o.parameters });
        const a = answer(o.sqlText);
        const statement = {
          getColumns: () =>
            (a.columns ?? Object.keys(a.rows?.[0] ?? {})).map((n) => ({ getName: () => n, getType: () => 'text' })),
        };
        setImmediate(() => o.complete(a.error, statement, a.rows ?? []));
        return statement;
      },
    ),
    destroy: sinon.spy((cb: (e?: Error) => void) => cb()),
  };
  const create = sinon.stub(snowflake, 'createConnection').returns(connection as never);
  return { connection, create, executed };
}

const run = (credential: Record<string, string> = { username: 'READER', private_key: privateKey }): EngineRun => ({
  config: { account: 'xy12345.us-east-1', warehouse: 'WH', database: 'OPS', schema: 'PUBLIC', role: 'READER_ROLE' },
  credential,
  host: 'xy12345.us-east-1.snowflakecomputing.com',
  address: '52.0.0.1',
  limits: { connectTimeoutMs: 200, statementTimeoutMs: 2500 },
});

const grants = (rows: [string, string, string][]) => ({
  rows: rows.map(([privilege, granted_on, name]) => ({ privilege, granted_on, name })),
});

describe('snowflake engine (snowflake-sdk boundary)', () => {
  it('logs in with the key pair only and switches secondary roles off before anything else', async () => {
    const { create, executed, connection } = fakeDriver((sql) =>
      sql.startsWith('select current_role')
        ? { rows: [{ ROLE: 'READER_ROLE', VERSION: '9.1' }] }
        : sql.startsWith('show grants')
          ? grants([
              ['USAGE', 'WAREHOUSE', 'WH'],
              ['SELECT', 'TABLE', 'OPS.PUBLIC.WELLS'],
            ])
          : {},
    );
    const outcome = await snowflakeEngine.probe(run());
    expect(outcome).to.deep.equal({ ok: true, reasons: [], serverVersion: 'Snowflake 9.1' });
    const options = create.firstCall.args[0] as Record<string, unknown>;
    expect(options).to.include({
      account: 'xy12345.us-east-1',
      username: 'READER',
      authenticator: 'SNOWFLAKE_JWT',
      privateKey,
      role: 'READER_ROLE',
    });
    expect(options).not.to.have.property('password');
    expect(executed[0].sqlText).to.equal('USE SECONDARY ROLES NONE');
    expect(connection.destroy.calledOnce).to.equal(true);
  });

  it('refuses a role that holds, directly or through an inherited role, anything beyond reading', async () => {
    fakeDriver((sql) => {
      if (sql.startsWith('select current_role')) return { rows: [{ ROLE: 'ANALYST', VERSION: '9.1' }] };
      if (sql === 'show grants to role "ANALYST"')
        return grants([
          ['USAGE', 'ROLE', 'LOADER'],
          ['SELECT', 'TABLE', 'OPS.PUBLIC.WELLS'],
        ]);
      if (sql === 'show grants to role "LOADER"')
        return grants([
          ['INSERT', 'TABLE', 'OPS.PUBLIC.WELLS'],
          ['OWNERSHIP', 'SCHEMA', 'OPS.STAGE'],
        ]);
      return {};
    });
    const outcome = await snowflakeEngine.probe(run());
    expect(outcome.ok).to.equal(false);
    expect(outcome.reasons).to.deep.equal([
      'role LOADER holds INSERT on table OPS.PUBLIC.WELLS',
      'role LOADER holds OWNERSHIP on schema OPS.STAGE',
    ]);
  });

  it('runs one statement under the row cap with bound values and the statement timeout', async () => {
    const { executed, connection } = fakeDriver((sql) =>
      sql.startsWith('select * from')
        ? {
            rows: [
              { API: '42-1', N: 1 },
              { API: '42-2', N: 2 },
              { API: '42-3', N: 3 },
            ],
          }
        : {},
    );
    const result = await snowflakeEngine.execute(run(), 'select api, n from wells where operator_id = :1;', [7], 2);
    const query = executed.find((e) => e.sqlText.startsWith('select * from'))!;
    expect(query.sqlText).to.equal('select * from (\nselect api, n from wells where operator_id = :1\n) limit 3');
    expect(query.binds).to.deep.equal([7]);
    expect(query.parameters).to.deep.equal({ STATEMENT_TIMEOUT_IN_SECONDS: 3, MULTI_STATEMENT_COUNT: 1 });
    expect(result).to.deep.equal({
      columns: [
        { name: 'API', type: 'text' },
        { name: 'N', type: 'text' },
      ],
      rows: [
        ['42-1', 1],
        ['42-2', 2],
      ],
      truncated: true,
    });
    expect(connection.destroy.calledOnce).to.equal(true);
  });

  it('a source that never answers is cut by the deadline and the connection destroyed', async () => {
    const { connection } = fakeDriver(() => ({}), { hangOnConnect: true });
    const started = Date.now();
    let error: Error | undefined;
    await snowflakeEngine.execute(run(), 'select 1', [], 10).catch((e) => (error = e));
    expect(error?.message).to.match(/did not answer within 2700 ms/);
    expect(Date.now() - started).to.be.lessThan(4000);
    expect(connection.destroy.calledOnce).to.equal(true);
  });

  it('accepts only a username and a PKCS#8 private key: no password login', () => {
    expect(snowflakeEngine.credentialSchema.safeParse({ username: 'u', private_key: privateKey }).success).to.equal(
      true,
    );
    expect(snowflakeEngine.credentialSchema.safeParse({ username: 'u', password: 'secret' }).success).to.equal(false);
    expect(snowflakeEngine.credentialSchema.safeParse({ username: 'u', private_key: 'not a key' }).success).to.equal(
      false,
    );
    expect(snowflakeEngine.hostOf({ account: 'xy12345.us-east-1' })).to.equal(
      'xy12345.us-east-1.snowflakecomputing.com',
    );
  });
});

describe('snowflake engine (live)', function () {
  this.timeout(60_000);
  before(function () {
    if (!process.env.SNOWFLAKE_ACCOUNT) this.skip();
  });

  it('proves the configured role read-only and runs a capped query', async () => {
    const env = process.env;
    const live: EngineRun = {
      config: {
        account: env.SNOWFLAKE_ACCOUNT!,
        warehouse: env.SNOWFLAKE_WAREHOUSE!,
        database: env.SNOWFLAKE_DATABASE!,
        schema: env.SNOWFLAKE_SCHEMA ?? 'PUBLIC',
        ...(env.SNOWFLAKE_ROLE ? { role: env.SNOWFLAKE_ROLE } : {}),
      },
      credential: { username: env.SNOWFLAKE_USER!, private_key: env.SNOWFLAKE_PRIVATE_KEY!.replace(/\\n/g, '\n') },
      host: `${env.SNOWFLAKE_ACCOUNT}.snowflakecomputing.com`,
      address: '',
      limits: { connectTimeoutMs: 20_000, statementTimeoutMs: 20_000 },
    };
    const probe = await snowflakeEngine.probe(live);
    expect(probe.serverVersion).to.match(/^Snowflake /);
    const result = await snowflakeEngine.execute(
      live,
      'select seq4() as n from table(generator(rowcount => 10))',
      [],
      3,
    );
    expect(result.rows).to.have.length(3);
    expect(result.truncated).to.equal(true);
  });
});
