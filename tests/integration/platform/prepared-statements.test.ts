import { expect } from 'chai';
import sinon from 'sinon';
import { connectDatabase, type Database } from '../../../src/platform/infra/database';
import { StatementNames } from '../../../src/platform/infra/prepared-statements';
import { createEmptyDatabase } from '../../support/database';

describe('repeated statements are prepared on each connection', () => {
  describe('StatementNames', () => {
    it('given a text seen once, when seen again, then it is named, by its text alone', () => {
      const names = new StatementNames();
      expect(names.nameFor('select * from t where id = $1')).to.equal(undefined);
      const name = names.nameFor('select * from t where id = $1');
      expect(name).to.match(/^p-[A-Za-z0-9_-]{22}$/);
      expect(names.nameFor('select * from t where id = $1')).to.equal(name);
      const other = new StatementNames();
      other.nameFor('select * from t where id = $1');
      expect(other.nameFor('select * from t where id = $1')).to.equal(name);
      names.nameFor('select * from u where id = $1');
      expect(names.nameFor('select * from u where id = $1')).to.not.equal(name);
    });

    it("given one sighting asked for (the event store's few read texts), then a text is named at once", () => {
      const names = new StatementNames(1);
      const name = names.nameFor('select * from events where stream_id = $1');
      expect(name).to.match(/^p-/);
      expect(names.nameFor('select * from events where stream_id = $1')).to.equal(name);
    });

    it('given a refused text, then it is never named again', () => {
      const names = new StatementNames();
      names.nameFor('q $1');
      expect(names.nameFor('q $1')).to.be.a('string');
      names.refuse('q $1');
      expect(names.nameFor('q $1')).to.equal(undefined);
      expect(names.nameFor('q $1')).to.equal(undefined);
    });

    it('given 1,000 named texts, then no further text is named', () => {
      const names = new StatementNames();
      for (let i = 0; i < 1000; i++) {
        names.nameFor(`q${i} $1`);
        names.nameFor(`q${i} $1`);
      }
      expect(names.size).to.equal(1000);
      names.nameFor('late $1');
      expect(names.nameFor('late $1')).to.equal(undefined);
      expect(names.nameFor('q999 $1')).to.be.a('string');
    });
  });

  describe('over a real connection', () => {
    let db: Database;
    const prepared = async () =>
      (await db.knex.raw(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'p-%'`)).rows[0]
        .n as number;

    beforeEach(async () => {
      db = connectDatabase((await createEmptyDatabase()).url, { poolSize: 1 });
      await db.knex.schema.createTable('things', (t) => {
        t.integer('id').primary();
        t.text('name');
      });
      await db.knex('things').insert([
        { id: 1, name: 'one' },
        { id: 2, name: 'two' },
      ]);
    });
    afterEach(() => db.close());

    it('a builder query repeated with other values is prepared once and answers each time', async () => {
      const names: string[] = [];
      for (const id of [1, 2, 1, 2]) names.push((await db.knex('things').where({ id }).first()).name);
      expect(names).to.deep.equal(['one', 'two', 'one', 'two']);
      expect(await prepared()).to.equal(1);
      await db.knex.transaction(async (trx) => {
        expect((await trx('things').where({ id: 2 }).first()).name).to.equal('two');
        expect(await trx('things').where({ id: 1 }).update({ name: 'uno' })).to.equal(1);
        expect(await trx('things').where({ id: 2 }).update({ name: 'dos' })).to.equal(1);
      });
      expect((await db.knex('things').orderBy('id')).map((r) => r.name)).to.deep.equal(['uno', 'dos']);
    });

    it('a table rebuilt with other columns under a prepared select * is read again, unnamed from then on', async () => {
      for (let i = 0; i < 3; i++) await db.knex('things').where({ id: 1 }).first();
      await db.knex.schema.dropTable('things');
      await db.knex.schema.createTable('things', (t) => {
        t.integer('id').primary();
        t.text('name');
        t.text('label');
      });
      await db.knex('things').insert({ id: 1, name: 'one', label: 'first' });
      for (let i = 0; i < 2; i++)
        expect(await db.knex('things').where({ id: 1 }).first()).to.deep.equal({ id: 1, name: 'one', label: 'first' });
    });

    it("a text's placeholders are positioned once, escaped question marks kept, and every call binds its own values", async () => {
      const client = db.knex.client as unknown as { positionBindings(sql: string): string };
      const calls = sinon.spy(Object.getPrototypeOf(Object.getPrototypeOf(client)), 'positionBindings');
      try {
        const sql = "SELECT ?::int AS a, ?::text AS b, '\\?' AS literal";
        for (const [a, b] of [
          [1, 'x'],
          [2, 'y'],
          [3, 'z'],
        ] as const)
          expect((await db.knex.raw(sql, [a, b])).rows[0]).to.deep.equal({ a, b, literal: '?' });
        expect(calls.callCount).to.equal(1);
        expect(client.positionBindings(sql)).to.equal("SELECT $1::int AS a, $2::text AS b, '?' AS literal");
      } finally {
        calls.restore();
      }
    });

    it('a call carrying a batch (a long array, a long text) is sent unnamed, planned for its size; the same text with a few values is prepared', async () => {
      const ids = Array.from({ length: 65 }, (_, i) => i + 1);
      const sql = 'SELECT count(*)::int AS n FROM things WHERE id = ANY(CAST(? AS int[])) AND length(?) >= 0';
      for (let i = 0; i < 3; i++) expect((await db.knex.raw(sql, [ids, 'x'])).rows[0].n).to.equal(2);
      for (let i = 0; i < 3; i++)
        expect((await db.knex.raw(sql, [[1, 2, 3], 'x'.repeat(16_385)])).rows[0].n).to.equal(2);
      expect(await prepared()).to.equal(0);
      for (let i = 0; i < 2; i++)
        expect((await db.knex.raw(sql, [ids.slice(0, 64), 'x'.repeat(16_384)])).rows[0].n).to.equal(2);
      expect(await prepared()).to.equal(1);
    });

    it('off: nothing is prepared', async () => {
      const plain = connectDatabase(db.url, { poolSize: 1, prepare: false });
      try {
        for (const id of [1, 2, 1]) await plain.knex('things').where({ id }).first();
        expect((await plain.knex.raw(`SELECT count(*)::int AS n FROM pg_prepared_statements`)).rows[0].n).to.equal(0);
      } finally {
        await plain.close();
      }
    });
  });
});
