import { expect } from 'chai';
import { Pool, type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { beginWithFirstStatement, inTransaction } from '../../../src/platform/infra/transaction';
import { createEmptyDatabase } from '../../support/database';

describe("a transaction's BEGIN travels with its first statement", () => {
  let pool: Pool;
  let client: PoolClient;
  const pipelined = () => (client as unknown as { pipeline: boolean }).pipeline;
  const rows = async () => (await pool.query('SELECT id FROM t ORDER BY id')).rows.map((r) => r.id as number);

  beforeEach(async () => {
    pool = new Pool({ connectionString: (await createEmptyDatabase()).url, max: 2 });
    await pool.query('CREATE TABLE t (id int PRIMARY KEY)');
    client = await pool.connect();
  });

  afterEach(async () => {
    client.release();
    await pool.end();
  });

  it('given statements in the transaction, then the first is sent before BEGIN is answered, and all commit together', async () => {
    let backendState = '';
    await inTransaction(client, async () => {
      const first = client.query('INSERT INTO t VALUES (1) RETURNING id');
      // Pipelined: the statement is already on the wire behind BEGIN.
      expect((client as unknown as { _sentQueryQueue: unknown[] })._sentQueryQueue.length).to.equal(1);
      expect((await first).rows).to.deep.equal([{ id: 1 }]);
      expect(pipelined()).to.equal(false);
      await client.query({ text: 'INSERT INTO t VALUES ($1)', values: [2] });
      backendState = (await pool.query('SELECT count(*)::int AS n FROM t')).rows[0].n;
    });
    // Another connection saw nothing until COMMIT: the first statement ran inside the transaction.
    expect(backendState).to.equal(0);
    expect(await rows()).to.deep.equal([1, 2]);
    expect(client.query).to.equal(Object.getPrototypeOf(client).query);
  });

  it('given a failing statement later in the transaction, then the first one is rolled back with it', async () => {
    let failure: unknown;
    await inTransaction(client, async () => {
      await client.query('INSERT INTO t VALUES (1)');
      await client.query('INSERT INTO t VALUES (1)');
    }).catch((error) => (failure = error));
    expect((failure as { code?: string }).code).to.equal('23505');
    expect(await rows()).to.deep.equal([]);
    // The connection is usable and plain again.
    expect((await client.query('SELECT 1 AS one')).rows).to.deep.equal([{ one: 1 }]);
  });

  it('given a failing first statement, then the error reaches the caller and the connection stays usable', async () => {
    let failure: unknown;
    await inTransaction(client, async () => {
      await client.query('INSERT INTO missing_table VALUES (1)');
    }).catch((error) => (failure = error));
    expect((failure as { code?: string }).code).to.equal('42P01');
    expect(pipelined()).to.equal(false);
    expect((await client.query('SELECT 2 AS two')).rows).to.deep.equal([{ two: 2 }]);
  });

  it('given a failing BEGIN (SET LOCAL of an unknown setting), then the first statement fails and nothing is written', async () => {
    let failure: unknown;
    await inTransaction(
      client,
      async () => {
        await client.query('INSERT INTO t VALUES (1)');
      },
      'BEGIN; SET LOCAL no_such_setting = 1',
    ).catch((error) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(await rows()).to.deep.equal([]);
  });

  it("given a BEGIN that fails while the statement behind it succeeds, then the caller gets BEGIN's error", async () => {
    let failure: unknown;
    await inTransaction(
      client,
      async () => {
        await client.query('SELECT 1 AS one');
      },
      'SELECT 1 / 0',
    ).catch((error) => (failure = error));
    expect((failure as { code?: string }).code).to.equal('22012');
    expect(pipelined()).to.equal(false);
    expect((await client.query('SELECT 3 AS three')).rows).to.deep.equal([{ three: 3 }]);
  });

  it("given BEGIN with SET LOCAL, then the settings hold for the transaction's statements", async () => {
    const setting = await inTransaction(
      client,
      async () => (await client.query('SHOW statement_timeout')).rows[0].statement_timeout,
      'BEGIN; SET LOCAL statement_timeout = 12345',
    );
    expect(setting).to.equal('12345ms');
    expect((await client.query('SHOW statement_timeout')).rows[0].statement_timeout).to.equal('0');
  });

  it('given callback-style statements (as knex sends them), then they run in the transaction', async () => {
    await inTransaction(client, async () => {
      await new Promise<void>((resolve, reject) =>
        client.query('INSERT INTO t VALUES (7)', (error) => (error ? reject(error) : resolve())),
      );
      await new Promise<void>((resolve, reject) =>
        client.query({ text: 'INSERT INTO t VALUES ($1)', values: [8] }, (error: Error) =>
          error ? reject(error) : resolve(),
        ),
      );
    });
    expect(await rows()).to.deep.equal([7, 8]);
  });

  it('given a COPY stream as the first statement, then it is queued behind BEGIN the ordinary way', async () => {
    await inTransaction(client, async () => {
      await pipeline(Readable.from(['3\n4\n']), client.query(copyFrom('COPY t (id) FROM STDIN')));
      // A COPY after the first statement too: pipeline mode is left once it is answered.
      await client.query('INSERT INTO t VALUES (5)');
      await pipeline(Readable.from(['6\n']), client.query(copyFrom('COPY t (id) FROM STDIN')));
    });
    expect(await rows()).to.deep.equal([3, 4, 5, 6]);
  });

  it('given statements sent without waiting for each other, then each gets its own answer', async () => {
    const answers = await inTransaction(client, () =>
      Promise.all([client.query('SELECT 1 AS n'), client.query('SELECT 2 AS n'), client.query('SELECT 3 AS n')]).then(
        (all) => all.map((r) => r.rows[0].n),
      ),
    );
    expect(answers).to.deep.equal([1, 2, 3]);
    expect(pipelined()).to.equal(false);
    await pipeline(Readable.from(['9\n']), client.query(copyFrom('COPY t (id) FROM STDIN')));
    expect(await rows()).to.deep.equal([9]);
  });

  it('given a query patched onto the connection, then the transaction goes through it and leaves it in place', async () => {
    const seen: string[] = [];
    const own = client.query;
    const patched = function (this: PoolClient, ...args: unknown[]) {
      const first = args[0] as string | { text: string };
      seen.push(typeof first === 'string' ? first : first.text);
      return (own as (...a: unknown[]) => unknown).apply(this, args);
    };
    (client as unknown as { query: unknown }).query = patched;
    await inTransaction(client, async () => {
      await client.query('INSERT INTO t VALUES (1)');
    });
    expect(seen).to.deep.equal(['BEGIN', 'INSERT INTO t VALUES (1)', 'COMMIT']);
    expect(client.query).to.equal(patched);
    delete (client as unknown as { query?: unknown }).query;
  });

  it('given no statement in the transaction, then no BEGIN is sent and there is nothing to commit', async () => {
    const t = beginWithFirstStatement(client, 'BEGIN');
    expect(await t.opened()).to.equal(false);
    t.release();
    expect(client.query).to.equal(Object.getPrototypeOf(client).query);
    expect((await client.query('SELECT txid_current_if_assigned() AS tx')).rows[0].tx).to.equal(null);
  });
});
