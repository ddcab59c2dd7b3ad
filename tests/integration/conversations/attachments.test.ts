import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { expect } from 'chai';
import { conversationsContext } from '../../../src/contexts/conversations/module';
import { appendMessage } from '../../../commands/conversations/append-message';
import { ValidationFailed } from '../../../src/platform/domain-errors';
import { attachmentTexts } from '../../../queries/conversations/attachments';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { type Session, signIn } from '../../support/auth';
import * as files from '../../support/files';

describe('conversation attachments over HTTP', () => {
  let t: TestPlatform;
  let alice: Session;
  let bob: Session;
  let carol: Session; // another tenant
  let conversation: string;

  before(async () => {
    t = await startTestPlatform({ contexts: [conversationsContext] });
    alice = await signIn(t);
    bob = await signIn(t);
    carol = await signIn(t, { tenantId: randomUUID() });
    conversation = await newConversation(alice);
  });
  after(() => t.close());

  async function newConversation(who: Session): Promise<string> {
    return (await t.api.post('/conversations', { agent_id: 'filing-agent' }, who.headers)).body.id;
  }
  const url = (id: string) => `${t.publicUrl}/api/v1/conversations/${id}/attachments`;
  const send = (
    who: Session,
    part: files.UploadPart,
    id = conversation,
    options: { chunked?: boolean; field?: string } = {},
  ) => upload(url(id), part, { headers: who.headers, ...options });
  const upload = files.upload;
  const textOf = async (who: Session, id: string, attachmentId: string) =>
    (await attachmentTexts(t.deps.knex, who.tenantId, id, [attachmentId]))[0]?.text;

  describe('accepted types, decided from the content', () => {
    it('extracts a text PDF and answers with the attachment object', async () => {
      const bytes = await files.pdfWithText([['Form PR for March 2026', 'Lease 12345 Permian']]);
      const response = await send(alice, { bytes, filename: 'march.pdf', contentType: 'application/pdf' });
      expect(response.status).to.equal(200);
      expect(response.body).to.include({
        filename: 'march.pdf',
        content_type: 'application/pdf',
        size_bytes: bytes.length,
        truncated: false,
      });
      expect(response.body).to.have.all.keys(
        'id',
        'filename',
        'content_type',
        'size_bytes',
        'token_estimate',
        'truncated',
        'created_at',
      );
      expect(response.body.token_estimate).to.be.within(5, 30);
      expect(await textOf(alice, conversation, response.body.id)).to.contain('Lease 12345 Permian');
    });

    it('reads an XLSX with two sheets', async () => {
      const bytes = await files.xlsxWithSheets({
        Production: [
          ['well', 'oil_bbl'],
          ['A-1', 120],
        ],
        Injection: [
          ['well', 'water_bbl'],
          ['I-7', 900],
        ],
      });
      const response = await send(alice, { bytes, filename: 'volumes.xlsx' });
      expect(response.body.content_type).to.equal('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      const text = await textOf(alice, conversation, response.body.id);
      expect(text).to.contain('## Sheet: Production').and.contain('## Sheet: Injection').and.contain('I-7\t900');
    });

    it('reads a DOCX, a CSV and a TXT', async () => {
      const docx = await send(alice, {
        bytes: await files.docxWithParagraphs(['Spill report', 'Volume 12 bbl']),
        filename: 'spill.docx',
      });
      expect(docx.body.content_type).to.equal(
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      );
      expect(await textOf(alice, conversation, docx.body.id)).to.equal('Spill report\n\nVolume 12 bbl');
      const csv = await send(alice, {
        bytes: files.csvOf([
          ['api_number', 'oil'],
          ['42-123-45678', 120],
        ]),
        filename: 'wells.csv',
        contentType: 'text/csv',
      });
      expect(csv.body.content_type).to.equal('text/csv');
      const txt = await send(alice, { bytes: Buffer.from('Inspector notes: valve replaced.'), filename: 'notes.txt' });
      expect(txt.body.content_type).to.equal('text/plain');
    });

    it('the bytes decide the type: a PDF declared as .txt/text/plain is refused with 415 naming both, a PNG named .pdf is refused with 415', async () => {
      const pdf = await send(alice, {
        bytes: await files.pdfWithText([['really a pdf']]),
        filename: 'notes.txt',
        contentType: 'text/plain',
      });
      expect(pdf.status).to.equal(415);
      expect(pdf.body.detail).to.match(/text\/plain names CSV or TXT, but its bytes are PDF/);
      const undeclared = await send(alice, { bytes: await files.pdfWithText([['really a pdf']]), filename: 'notes' });
      expect(undeclared.body.content_type).to.equal('application/pdf');
      const png = await send(alice, {
        bytes: files.grayscalePng(16, 16),
        filename: 'scan.pdf',
        contentType: 'application/pdf',
      });
      expect(png.status).to.equal(415);
      expect(png.body.detail).to.match(/Unsupported file type/);
    });
  });

  describe('unreadable files answer 422 with a human-readable detail', () => {
    const cases: Array<[string, () => Promise<Buffer> | Buffer, RegExp]> = [
      ['a password-protected PDF', files.encryptedPdf, /password-protected/],
      ['an image-only PDF', files.imageOnlyPdf, /scanned images and no text/],
      ['a blank text file', () => Buffer.from('   \n\n'), /no text/],
      ['an empty file', () => Buffer.alloc(0), /empty/],
    ];
    for (const [name, make, message] of cases) {
      it(name, async () => {
        const response = await send(alice, { bytes: await make(), filename: 'upload.pdf' });
        expect(response.status).to.equal(422);
        expect(response.body.detail[0].loc).to.deep.equal(['body', 'file']);
        expect(response.body.detail[0].msg).to.match(message);
      });
    }

    it('a zip bomb renamed .docx is refused before any reader inflates it', async () => {
      const response = await send(alice, { bytes: await files.zipBombDocx(40), filename: 'report.docx' });
      expect(response.status).to.equal(422);
      expect(response.body.detail[0].msg).to.match(/zip bomb/);
    });

    it('a body without a file part answers 422', async () => {
      const wrongField = await send(alice, { bytes: Buffer.from('hello'), filename: 'a.txt' }, conversation, {
        field: 'document',
      });
      expect(wrongField.status).to.equal(422);
      const json = await t.api.post(`/conversations/${conversation}/attachments`, { file: 'x' }, alice.headers);
      expect(json.status).to.equal(422);
    });
  });

  describe('the 10 MB limit', () => {
    it('an 11 MB upload with a Content-Length answers 413', async () => {
      const response = await send(alice, { bytes: files.textOfSize(11 * 1024 * 1024), filename: 'big.txt' });
      expect(response.status).to.equal(413);
      expect(response.body.detail).to.match(/10 MB/);
    });

    it('an 11 MB chunked upload without Content-Length answers 413 and stores nothing', async () => {
      const id = await newConversation(alice);
      const response = await send(alice, { bytes: files.textOfSize(11 * 1024 * 1024), filename: 'big.txt' }, id, {
        chunked: true,
      });
      expect(response.status).to.equal(413);
      expect((await t.api.get(`/conversations/${id}/attachments`, alice.headers)).body.total).to.equal(0);
    });

    it('the server answers 413 while the client is still sending, without reading the rest', async () => {
      // A raw client that sends 11 MB slowly: the 413 must arrive before the body is done.
      const { body, contentType } = files.multipartBody({
        bytes: files.textOfSize(11 * 1024 * 1024),
        filename: 'big.txt',
      });
      const target = new URL(url(conversation));
      const result = await new Promise<{ status: number; sentWhenAnswered: number }>((resolve, reject) => {
        let sent = 0;
        const request = http.request({
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { ...alice.headers, 'content-type': contentType, 'transfer-encoding': 'chunked' },
        });
        request.on('response', (response) => {
          resolve({ status: response.statusCode!, sentWhenAnswered: sent });
          response.resume();
          request.destroy();
        });
        request.on('error', (error) => (sent >= body.length ? undefined : reject(error)));
        const pump = () => {
          while (sent < body.length) {
            const chunk = body.subarray(sent, sent + 256 * 1024);
            sent += chunk.length;
            if (!request.write(chunk)) return request.once('drain', () => setTimeout(pump, 5));
          }
          request.end();
        };
        pump();
      });
      expect(result.status).to.equal(413);
      expect(result.sentWhenAnswered, 'bytes sent when the 413 arrived').to.be.below(body.length);
      expect((await t.api.get('/conversations', alice.headers)).status).to.equal(200);
    });

    it('a file just under 10 MB is accepted and its text truncated to about 8,000 tokens', async () => {
      const response = await send(alice, { bytes: files.textOfSize(10 * 1024 * 1024 - 1024), filename: 'long.txt' });
      expect(response.status).to.equal(200);
      expect(response.body).to.include({ truncated: true, token_estimate: 8000, size_bytes: 10 * 1024 * 1024 - 1024 });
    });
  });

  describe('only the extracted text is kept', () => {
    it('the event holds the text and metadata, never the original bytes', async () => {
      const bytes = await files.pdfWithText([['stored as text only']]);
      const response = await send(alice, { bytes, filename: 'keep.pdf' });
      const events = await t.deps.store.readStream(`conversations.conversation-${alice.tenantId}-${conversation}`);
      const added = events.find(
        (e) => e.type === 'AttachmentAdded' && (e.data as { attachmentId: string }).attachmentId === response.body.id,
      )!;
      expect(added.data).to.have.all.keys(
        'attachmentId',
        'filename',
        'contentType',
        'sizeBytes',
        'tokenEstimate',
        'truncated',
        'text',
      );
      expect(JSON.stringify(added.data)).not.to.contain(bytes.toString('base64').slice(0, 40));
      expect((added.data as { text: string }).text).to.equal('stored as text only');
    });
  });

  describe('list, delete and use in a message', () => {
    it('lists and deletes attachments', async () => {
      const id = await newConversation(alice);
      const a = (await send(alice, { bytes: Buffer.from('first file'), filename: 'a.txt' }, id)).body.id;
      const b = (await send(alice, { bytes: Buffer.from('second file'), filename: 'b.txt' }, id)).body.id;
      const list = await t.api.get(`/conversations/${id}/attachments`, alice.headers);
      expect(list.body.total).to.equal(2);
      expect(list.body.attachments.map((x: { id: string }) => x.id)).to.have.members([a, b]);
      const removed = await t.api.delete(`/conversations/${id}/attachments/${a}`, alice.headers);
      expect(removed.body).to.deep.equal({ id: a, status: 'deleted' });
      expect(
        (await t.api.get(`/conversations/${id}/attachments`, alice.headers)).body.attachments.map(
          (x: { id: string }) => x.id,
        ),
      ).to.deep.equal([b]);
      expect((await t.api.delete(`/conversations/${id}/attachments/${a}`, alice.headers)).status).to.equal(404);
    });

    it('a message records up to three of its own attachments; a foreign or fourth id fails the append', async () => {
      const id = await newConversation(alice);
      const ids: string[] = [];
      for (const name of ['1.txt', '2.txt', '3.txt', '4.txt'])
        ids.push((await send(alice, { bytes: Buffer.from(`file ${name}`), filename: name }, id)).body.id);
      const target = { tenantId: alice.tenantId, conversationId: id, callerId: alice.userId };
      await appendMessage(t.deps, target, { role: 'user', content: 'compare these', attachment_ids: ids.slice(0, 3) });
      const [message] = (await t.api.get(`/conversations/${id}/messages`, alice.headers)).body.messages;
      expect(message.content).to.equal('compare these');
      expect(message.metadata.attachments).to.deep.equal([
        { id: ids[0], filename: '1.txt' },
        { id: ids[1], filename: '2.txt' },
        { id: ids[2], filename: '3.txt' },
      ]);
      expect(
        await appendMessage(t.deps, target, { role: 'user', content: 'x', attachment_ids: ids }).catch((e) => e),
      ).to.be.instanceOf(ValidationFailed);
      // An attachment of another conversation of the same user is foreign here.
      const elsewhere = (await send(alice, { bytes: Buffer.from('elsewhere'), filename: 'e.txt' })).body.id;
      const foreign = await appendMessage(t.deps, target, {
        role: 'user',
        content: 'x',
        attachment_ids: [elsewhere],
      }).catch((e) => e);
      expect(foreign).to.be.instanceOf(ValidationFailed);
      expect(foreign.issues[0].loc).to.deep.equal(['body', 'attachment_ids', 0]);
    });
  });

  describe('access', () => {
    it('another user or tenant cannot upload, list or delete (404), and the upload is not read', async () => {
      const id = await newConversation(alice);
      const kept = (await send(alice, { bytes: Buffer.from('private'), filename: 'p.txt' }, id)).body.id;
      for (const other of [bob, carol]) {
        expect((await send(other, { bytes: Buffer.from('intruder'), filename: 'x.txt' }, id)).status).to.equal(404);
        expect((await t.api.get(`/conversations/${id}/attachments`, other.headers)).status).to.equal(404);
        expect((await t.api.delete(`/conversations/${id}/attachments/${kept}`, other.headers)).status).to.equal(404);
      }
      expect((await t.api.get(`/conversations/${id}/attachments`, alice.headers)).body.total).to.equal(1);
    });

    it('uploads need identity on the public listener (401)', async () => {
      const response = await upload(url(conversation), { bytes: Buffer.from('x'), filename: 'x.txt' });
      expect(response.status).to.equal(401);
    });
  });
});
