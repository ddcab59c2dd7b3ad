import { expect } from 'chai';
import { createConversationsContext } from '../../../src/contexts/conversations/module';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { type Session, signIn } from '../../support/auth';
import * as files from '../../support/files';

describe('the time limit on reading an upload', () => {
  let t: TestPlatform;
  let alice: Session;

  // A limit no real read can meet: every upload here runs out of time.
  before(async () => {
    t = await startTestPlatform({ contexts: [createConversationsContext()], env: { EXTRACTION_TIME_LIMIT_MS: '1' } });
    alice = await signIn(t);
  });
  after(() => t.close());

  it('answers 422 "took too long", stores nothing, and keeps serving', async () => {
    const conversation = (await t.api.post('/conversations', { agent_id: 'filing-agent' }, alice.headers)).body.id;
    const url = `${t.publicUrl}/api/v1/conversations/${conversation}/attachments`;
    for (const bytes of [await files.docxWithParagraphs(['Spill report']), await files.pdfWithText([['Form PR']])]) {
      const response = await files.upload(url, { bytes, filename: 'report' }, { headers: alice.headers });
      expect(response.status).to.equal(422);
      expect(response.body.detail[0])
        .to.include({ type: 'file.timeout' })
        .and.deep.include({ loc: ['body', 'file'] });
      expect(response.body.detail[0].msg).to.match(/^The file took too long to read/);
    }
    expect((await t.api.get(`/conversations/${conversation}/attachments`, alice.headers)).body.total).to.equal(0);
    expect((await fetch(`${t.publicUrl}/health`)).status).to.equal(200);
  });
});
