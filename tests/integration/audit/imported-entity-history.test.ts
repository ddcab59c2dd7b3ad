import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { importGraph } from '../../../commands/graph/import-graph';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/** An imported entity's audit timeline starts at its import and shows each later change with before and after. */
describe('the history of an imported entity', () => {
  let t: TestPlatform;
  let admin: Session;

  before(async function () {
    // A shared machine can take a while to start the embedded database.
    this.timeout(120_000);
    t = await startTestPlatform();
    admin = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
  });
  after(() => t.close());

  const timeline = async (lease: string) => {
    const res = await t.api.get(
      `/admin/audit/events?entity=${encodeURIComponent(`Lease:${lease}`)}&limit=1000`,
      admin.headers,
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.events as Array<{
      type: string;
      changes: Array<{ field: string; before: unknown; after: unknown }>;
    }>;
  };

  it('its first write records the import (every property as imported), then the change with before and after', async () => {
    const lease = `O-08-${String(Math.floor(Math.random() * 90000) + 10000)}`;
    await importGraph(
      t.deps,
      { tenantId: admin.tenantId, userId: admin.userId },
      {
        source: 'test',
        description: 'one lease',
        vertices: [
          {
            id: randomUUID(),
            label: 'Lease',
            entity_id: lease,
            properties: { name: 'JONES LEASE', form_pr_period: '2025-01' },
          },
        ],
        edges: [],
      },
    );
    const put = await t.api.put(
      `/graph/entities/Lease/${lease}`,
      { properties: { form_pr_period: '2025-02' } },
      admin.headers,
    );
    expect(put.status, JSON.stringify(put.body)).to.equal(200);

    const events = (await timeline(lease)).filter((e) => e.type.startsWith('Vertex'));
    expect(events.map((e) => e.type)).to.deep.equal(['VertexImported', 'VertexPropertiesUpdated']);
    expect(events[0].changes).to.deep.include({ field: 'properties.name', before: null, after: 'JONES LEASE' });
    expect(events[0].changes).to.deep.include({ field: 'properties.form_pr_period', before: null, after: '2025-01' });
    expect(events[1].changes).to.deep.equal([
      { field: 'properties.form_pr_period', before: '2025-01', after: '2025-02' },
    ]);

    // Recorded once: the next change starts from the stream, with no second import.
    expect(
      (await t.api.put(`/graph/entities/Lease/${lease}`, { properties: { form_pr_period: '2025-03' } }, admin.headers))
        .status,
    ).to.equal(200);
    const later = (await timeline(lease)).filter((e) => e.type.startsWith('Vertex'));
    expect(later.map((e) => e.type)).to.deep.equal([
      'VertexImported',
      'VertexPropertiesUpdated',
      'VertexPropertiesUpdated',
    ]);
    expect(later[2].changes).to.deep.equal([
      { field: 'properties.form_pr_period', before: '2025-02', after: '2025-03' },
    ]);
    // The graph shows the latest value.
    expect((await t.api.get(`/graph/entities/Lease/${lease}`, admin.headers)).body.properties.form_pr_period).to.equal(
      '2025-03',
    );
  });
});
