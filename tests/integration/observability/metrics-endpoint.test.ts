import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { signIn } from '../../support/auth';
import { eventually } from '../../support/eventually';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { toyContext } from '../../support/toy-context';

const TOKEN = 'metrics-token-for-tests-0123456789';

/** One sample's value from a Prometheus text exposition (null: no such series). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

describe('GET /metrics', () => {
  let t: TestPlatform;
  let open: TestPlatform;
  let auth: Record<string, string>;
  before(async () => {
    // One after the other: the first start creates the database role both run as.
    t = await startTestPlatform({ contexts: [toyContext()], env: { METRICS_TOKEN: TOKEN } });
    open = await startTestPlatform({ contexts: [toyContext()] });
    auth = (await signIn(t)).headers;
  });
  after(() => Promise.all([t?.close(), open?.close()]));

  const scrape = async (platform: TestPlatform) => (await fetch(`${platform.internalUrl}/metrics`)).text();

  it('the internal listener serves the Prometheus text format with the process metrics and every lane', async () => {
    const response = await fetch(`${t.internalUrl}/metrics`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(sample(text, 'process_cpu_user_seconds_total')).to.not.equal(null);
    expect(sample(text, 'lane_lag_events', { kind: 'projection', lane: 'toy_notes' })).to.equal(0);
    expect(sample(text, 'lane_lag_seconds', { kind: 'scheduler', lane: 'scheduler' })).to.equal(0);
    expect(sample(text, 'lane_leader', { kind: 'projection' })).to.equal(1);
    expect(sample(text, 'lane_subscription_up', { kind: 'projection' })).to.equal(1);
    expect(sample(text, 'db_pool_connections_in_use', { pool: 'events' })).to.be.a('number');
  });

  it('two platforms in one process each export their own registry', async () => {
    expect((await t.api.post('/toy/notes', { title: 'only on the first' }, auth)).status).to.equal(201);
    const [first, second] = await Promise.all([scrape(t), scrape(open)]);
    expect(sample(first, 'eventstore_appends_total', { result: 'ok' })).to.be.greaterThan(0);
    expect(sample(second, 'http_request_duration_seconds_count', { route: '/api/v1/toy/notes' })).to.equal(null);
  });

  it('requests are labelled by route template, never by the id in the path; unmatched paths and gateway refusals share one label', async () => {
    const id = randomUUID();
    expect((await t.api.get(`/toy/notes/${id}`, auth)).status).to.equal(404);
    await fetch(`${t.publicUrl}/api/v1/no/such/${id}`, { headers: auth });
    await t.api.get(`/toy/notes/${id}`);
    const text = await eventually(async () => {
      const now = await scrape(t);
      return sample(now, 'http_request_duration_seconds_count', { route: '/api/v1/toy/notes/{id}' }) ? now : null;
    });
    expect(
      sample(text, 'http_request_duration_seconds_count', {
        method: 'GET',
        status: '404',
        route: '/api/v1/toy/notes/{id}',
      }),
    ).to.equal(1);
    expect(sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).to.be.at.least(
      1,
    );
    expect(sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status: '401' })).to.be.at.least(
      1,
    );
    expect(text).to.not.include(id);
  });

  it('a write moves the append counters and the events-per-append histogram', async () => {
    const before = sample(await scrape(t), 'eventstore_appends_total', { result: 'ok' }) ?? 0;
    expect((await t.api.post('/toy/notes', { title: 'counted' }, auth)).status).to.equal(201);
    const after = await scrape(t);
    expect(sample(after, 'eventstore_appends_total', { result: 'ok' })).to.equal(before + 1);
    expect(sample(after, 'eventstore_append_events_bucket', { le: '1' })).to.be.greaterThan(0);
  });

  it('the public listener serves it only with the bearer token; otherwise it is an unknown path (404)', async () => {
    const authorized = await fetch(`${t.publicUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(authorized.status).to.equal(200);
    expect(await authorized.text()).to.include('lane_lag_events');
    for (const headers of <Array<Record<string, string>>>[
      {},
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: 'Bearer wrong' },
      { authorization: TOKEN },
    ]) {
      const refused = await fetch(`${t.publicUrl}/metrics`, { headers });
      expect(refused.status, JSON.stringify(headers)).to.equal(404);
      expect(await refused.text()).to.not.include('lane_lag_events');
    }
  });

  it('without METRICS_TOKEN the public listener has no /metrics at all, whatever the header', async () => {
    for (const headers of <Array<Record<string, string>>>[
      {},
      { authorization: 'Bearer ' },
      { authorization: `Bearer ${TOKEN}` },
    ]) {
      expect((await fetch(`${open.publicUrl}/metrics`, { headers })).status).to.equal(404);
    }
    expect((await fetch(`${open.internalUrl}/metrics`)).status).to.equal(200);
  });
});
