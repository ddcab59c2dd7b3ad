import { expect } from 'chai';
import { graphContext } from '../../../src/contexts/graph/module';
import { settingsContext } from '../../../src/contexts/settings/module';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * A JSON body limit per route family: the parser takes the limit of the route the
 * body is for, refuses a larger body with the readable 413 before any route runs, and the
 * document states each limit as `x-body-limit`.
 */
describe('request body limits per route', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let admin: Session;
  // ≈100 KB of JSON: past the settings routes' 64 KB, far under the graph's 2 MB.
  const note = 'Form W-10 test witnessed by the district office. '.repeat(2_000);

  before(async () => {
    t = await startTestPlatform({ contexts: [settingsContext, graphContext] });
    admin = await signIn(t, { roles: ['admin'] });
  });
  after(() => t.close());

  it('a 100 KB or a 3 MB body on PUT /settings (64 KB) answers a readable 413 naming the limit and changes nothing', async () => {
    const before = (await t.api.get('/settings', admin.headers)).body;
    for (const filler of [note, note.repeat(30)]) {
      const response = await t.api.put('/settings', { max_tokens_per_day: 424_242, note: filler }, admin.headers);
      expect(response.status).to.equal(413);
      expect(response.body).to.deep.equal({ detail: 'Request body too large: this route takes at most 64 KB' });
    }
    expect((await t.api.get('/settings', admin.headers)).body).to.deep.equal(before);
  });

  it('a bigger body on POST /graph/entities (2 MB) is parsed and the entity created', async () => {
    const body = { label: 'WellEvent', properties: { type: 'workover', date: '2026-01-10', notes: `${note}${note}` } };
    expect(Buffer.byteLength(JSON.stringify(body))).to.be.greaterThan(190 * 1024);
    const response = await t.api.post('/graph/entities', body, admin.headers);
    expect(response.status).to.equal(201);
  });

  it('the document states each JSON body limit and each upload limit', async () => {
    const document = (await t.api.get('/openapi.json')).body;
    expect(document.paths['/api/v1/settings'].put['x-body-limit']).to.equal(64 * 1024);
    expect(document.paths['/api/v1/graph/entities'].post['x-body-limit']).to.equal(2 * 1024 * 1024);
    expect(document.paths['/api/v1/settings'].put.description).to.include(
      'Request body: at most 64 KB of JSON (413 past it).',
    );
  });
});
