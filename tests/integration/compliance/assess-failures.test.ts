import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createComplianceContext } from '../../../src/contexts/compliance/module';
import { graphContext } from '../../../src/contexts/graph/module';
import type { DomainPack } from '../../../commands/compliance/packs/pack';
import { productionPack } from '../../../commands/compliance/packs/production';
import { rule37Pack } from '../../../commands/compliance/packs/rule-37';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/** A pack whose graph query fails, as a broken or timed-out domain query would. */
const failingPack: DomainPack<null> = {
  domain: 'broken',
  title: 'A pack whose query fails',
  appliesTo: ['Well'],
  entityFields: [],
  async load() {
    throw new Error('relation "missing_table" does not exist');
  },
  assess() {
    throw new Error('unreachable');
  },
};

describe('assessing with failing domain packs, and retried assessments', () => {
  let t: TestPlatform;
  let auth: Record<string, string>;
  let tenantId: string;
  let onlyFailing: Record<string, string>;

  before(async () => {
    t = await startTestPlatform({
      contexts: [graphContext, createComplianceContext([failingPack, productionPack, rule37Pack])],
    });
    const session = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    auth = session.headers;
    tenantId = session.tenantId;
    expect((await t.api.post('/graph/seed', { wells: 10 }, auth)).status).to.equal(201);
    onlyFailing = (await signIn(t, { roles: ['operator'], tenantId: randomUUID() })).headers;
  });
  after(() => t.close());

  it('a failing pack makes the assessment partial, named in failed_domains; the others are recorded', async () => {
    const response = await t.api.post('/compliance/assess', {}, auth);
    expect(response.status).to.equal(200);
    // rule_37 judges every well; production the oil leases and the gas wells (an oil well files on its lease).
    const all = async (label: string) =>
      (await t.api.get(`/graph/entities/${label}?limit=200`, auth)).body.entities as Array<{
        properties: Record<string, string>;
      }>;
    const oilLeases = (await all('Lease')).filter((l) => l.properties.oil_gas_code === 'O').length;
    const gasWells = (await all('Well')).filter((w) => w.properties.well_type === 'gas').length;
    expect(response.body).to.include({ status: 'partial', entities: 10 + oilLeases, cells: 10 + gasWells + oilLeases });
    expect(response.body.failed_domains).to.deep.equal({ broken: 'relation "missing_table" does not exist' });
    const matrix = await t.api.get('/compliance/matrix', auth);
    for (const row of matrix.body.rows) expect(row.domains.broken).to.equal('grey');
  });

  it('the domains list shows installed packs, short_title falling back to title', async () => {
    const domains = await t.api.get('/compliance/domains', auth);
    expect(domains.body[0]).to.deep.equal({
      domain: 'broken',
      title: 'A pack whose query fails',
      short_title: 'A pack whose query fails',
      applies_to: ['Well'],
    });
  });

  it('every pack failing answers 503 and records nothing', async () => {
    const solo = await startTestPlatform({ contexts: [graphContext, createComplianceContext([failingPack])] });
    try {
      const session = await signIn(solo, { roles: ['operator'], tenantId: randomUUID() });
      await solo.api.post('/graph/seed', { wells: 3 }, session.headers);
      const response = await solo.api.post('/compliance/assess', {}, session.headers);
      expect(response.status).to.equal(503);
      const recorded = await solo.deps
        .knex('events')
        .where('stream_id', 'like', 'compliance.%')
        .count<{ count: string }[]>('* as count');
      expect(Number(recorded[0].count)).to.equal(0);
    } finally {
      await solo.close();
    }
  });

  it('a retried assessment with the same Idempotency-Key records nothing new and answers the same body', async () => {
    const headers = { ...auth, 'idempotency-key': `assess-${randomUUID()}` };
    const first = await t.api.post('/compliance/assess', {}, headers);
    expect(first.status).to.equal(200);
    const count = async () =>
      Number(
        (
          await t.deps
            .knex('events')
            .where('stream_id', 'like', `compliance.assessment-${tenantId}-%`)
            .count<{ count: string }[]>('* as count')
        )[0].count,
      );
    const before = await count();
    const second = await t.api.post('/compliance/assess', {}, headers);
    expect(second.status).to.equal(200);
    expect(second.body).to.deep.equal(first.body);
    expect(await count()).to.equal(before);
  });

  it('assessing an unknown entity answers 404; a tenant with an empty graph assesses nothing', async () => {
    expect((await t.api.post('/compliance/assess/42-000-00000', {}, auth)).status).to.equal(404);
    const empty = await t.api.post('/compliance/assess', {}, onlyFailing);
    expect(empty.status).to.equal(200);
    expect(empty.body).to.include({ entities: 0, status: 'complete' });
  });
});
