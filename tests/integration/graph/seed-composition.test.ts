import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { graphContext } from '../../../src/contexts/graph/module';
import { monitoringContext } from '../../../src/contexts/monitoring/module';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

describe('the sample portfolio with the samples of the other running contexts (POST /graph/seed)', () => {
  let t: TestPlatform;
  after(() => t?.close());

  it("adds monitoring's sample event types once, through the module's seedSamples, when monitoring runs", async () => {
    t = await startTestPlatform({ contexts: [graphContext, monitoringContext] });
    const { headers } = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    expect((await t.api.get('/event-types', headers)).body).to.deep.equal([]);
    expect((await t.api.post('/graph/seed', { wells: 3 }, headers)).status).to.equal(201);
    const names = (await t.api.get('/event-types', headers)).body.map((type: { name: string }) => type.name);
    expect(names).to.include.members(['Flare upset', 'Equipment failure']);
    expect(new Set(names).size).to.equal(names.length);
  });
});
