import { expect } from 'chai';
import type { Database } from '../../../src/platform/infra/database';
import { createSecretStore, SECRETS_TABLE } from '../../../src/platform/infra/secret-store';
import { connectTestDatabase } from '../../support/database';

describe('secret store: AES-256-GCM table keyed by name', () => {
  let db: Database;
  before(async () => {
    db = await connectTestDatabase(2);
  });
  after(() => db.close());

  it('round-trips a value, stores no plaintext, and overwrites by name', async () => {
    const store = createSecretStore(db.knex, 'k'.repeat(40));
    await store.put('connectors/erp/password', 'hunter2-secret');
    expect(await store.get('connectors/erp/password')).to.equal('hunter2-secret');
    const row = await db.knex(SECRETS_TABLE).where({ name: 'connectors/erp/password' }).first();
    expect(Buffer.from(row.ciphertext).toString('utf8')).not.to.contain('hunter2');
    await store.put('connectors/erp/password', 'rotated');
    expect(await store.get('connectors/erp/password')).to.equal('rotated');
    await store.delete('connectors/erp/password');
    expect(await store.get('connectors/erp/password')).to.equal(null);
  });

  it('a wrong key or a ciphertext moved under another name does not decrypt', async () => {
    const store = createSecretStore(db.knex, 'k'.repeat(40));
    await store.put('a', 'value-a');
    let wrongKey: unknown;
    await createSecretStore(db.knex, 'z'.repeat(40))
      .get('a')
      .catch((e) => (wrongKey = e));
    expect(wrongKey).to.be.instanceOf(Error);
    const row = await db.knex(SECRETS_TABLE).where({ name: 'a' }).first();
    await db.knex(SECRETS_TABLE).insert({ ...row, name: 'b' });
    let moved: unknown;
    await store.get('b').catch((e) => (moved = e));
    expect(moved).to.be.instanceOf(Error);
  });
});
