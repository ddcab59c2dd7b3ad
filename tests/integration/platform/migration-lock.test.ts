import { expect } from 'chai';
import { connectDatabase } from '../../../src/platform/infra/database';
import { migrateToLatest, migrations } from '../../../src/platform/infra/migrations';
import { createEmptyDatabase } from '../../support/database';

/** Two instances started at the same instant on an empty database. */
describe('migrations under the advisory lock', () => {
  it('two concurrent migrations of an empty database both succeed and apply each migration once', async () => {
    for (let round = 0; round < 3; round++) {
      const { url } = await createEmptyDatabase();
      const [a, b] = [connectDatabase(url, { poolSize: 1 }), connectDatabase(url, { poolSize: 1 })];
      try {
        const [first, second] = await Promise.all([migrateToLatest(a.knex), migrateToLatest(b.knex)]);
        expect([...first, ...second].sort()).to.deep.equal(migrations.map((m) => m.name).sort());
        const rows = await a.knex('knex_migrations').select('name');
        expect(rows).to.have.length(migrations.length);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    }
  });
});
