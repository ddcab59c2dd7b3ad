import http from 'node:http';
import { expect } from 'chai';
import { conversationsContext } from '../../../src/contexts/conversations/module';
import { DRAIN_BOUND_BYTES } from '../../../src/platform/http/multipart';
import { type Session, signIn } from '../../support/auth';
import * as files from '../../support/files';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * Uploads as ordinary clients see them: an over-limit upload is a 413 that Node's fetch can
 * read even from a slow client, and a declaration the bytes contradict is a 415 naming both.
 */
describe('uploads every client can read', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let alice: Session;
  let conversation: string;

  before(async () => {
    t = await startTestPlatform({ contexts: [conversationsContext] });
    alice = await signIn(t);
    conversation = (await t.api.post('/conversations', { agent_id: 'filing-agent' }, alice.headers)).body.id;
  });
  after(() => t.close());

  const url = () => `${t.publicUrl}/api/v1/conversations/${conversation}/attachments`;

  /** fetch streaming the body slowly (a client on a slow link), ~3 s for 11 MB. */
  async function trickle(body: Buffer, contentType: string, chunk = 128 * 1024, delayMs = 30) {
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (offset >= body.length) return controller.close();
        await new Promise((r) => setTimeout(r, delayMs));
        controller.enqueue(new Uint8Array(body.subarray(offset, offset + chunk)));
        offset += chunk;
      },
    });
    const init: RequestInit & { duplex: 'half' } = {
      method: 'POST',
      headers: { ...alice.headers, 'content-type': contentType },
      body: stream,
      duplex: 'half',
    };
    const response = await fetch(url(), init);
    return { status: response.status, body: await response.json() };
  }

  it('an over-limit upload from a slow client: fetch reads the 413 (the rest is drained, not cut)', async () => {
    const { body, contentType } = files.multipartBody({
      bytes: files.textOfSize(11 * 1024 * 1024),
      filename: 'big.txt',
    });
    const response = await trickle(body, contentType);
    expect(response.status).to.equal(413);
    expect(response.body.detail).to.match(/10 MB/);
    expect((await t.api.get(`/conversations/${conversation}/attachments`, alice.headers)).body.total).to.equal(0);
  });

  it('a 30 MB upload with a Content-Length: fetch reads the 413, and the server still serves', async () => {
    const response = await files.upload(
      url(),
      { bytes: files.textOfSize(30 * 1024 * 1024), filename: 'big.txt' },
      { headers: alice.headers },
    );
    expect(response.status).to.equal(413);
    expect((await t.api.get('/conversations', alice.headers)).status).to.equal(200);
  });

  it('after an early 413 the server keeps reading a slow body to its end (no reset under the writer) and keeps the connection', async () => {
    const { body, contentType } = files.multipartBody({
      bytes: files.textOfSize(11 * 1024 * 1024),
      filename: 'big.txt',
    });
    const target = new URL(url());
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await new Promise<{
        status: number;
        answeredAt: number;
        finishedAt: number;
        writeError: string | null;
      }>((resolve) => {
        let answeredAt = -1;
        let status = 0;
        let writeError: string | null = null;
        const request = http.request({
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { ...alice.headers, 'content-type': contentType, 'transfer-encoding': 'chunked' },
        });
        request.on('response', (response) => {
          status = response.statusCode!;
          answeredAt = sent;
          response.resume();
        });
        request.on('error', (error) => (writeError = (error as NodeJS.ErrnoException).code ?? error.message));
        request.on('close', () => (sent < body.length ? (writeError ??= 'closed by the server') : undefined));
        let sent = 0;
        // ~3.5 s: well past any grace period a server that cuts slow writers would give.
        const pump = () => {
          if (writeError) return resolve({ status, answeredAt, finishedAt: sent, writeError });
          if (sent >= body.length)
            return request.end(() =>
              setTimeout(() => resolve({ status, answeredAt, finishedAt: sent, writeError }), 100),
            );
          request.write(body.subarray(sent, sent + 128 * 1024));
          sent += 128 * 1024;
          setTimeout(pump, 40);
        };
        pump();
      });
      expect(first.status).to.equal(413);
      expect(first.answeredAt, 'answered early').to.be.below(body.length);
      expect(first.writeError, 'the server never reset the writer').to.equal(null);
      expect(first.finishedAt).to.be.at.least(body.length);
      const second = await new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const request = http.get(
          { agent, host: target.hostname, port: target.port, path: '/api/v1/conversations', headers: alice.headers },
          (response) => {
            response.resume();
            resolve({ status: response.statusCode!, reused: request.reusedSocket });
          },
        );
        request.on('error', reject);
      });
      expect(second).to.deep.equal({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('8 concurrent 11 MB uploads with a Content-Length while other requests run: every client reads its 413, none sees EPIPE', async function () {
    this.timeout(120_000);
    let reads = 0;
    let busy = true;
    const background = (async () => {
      while (busy) {
        expect((await t.api.get('/conversations', alice.headers)).status).to.equal(200);
        reads++;
      }
    })();
    const uploads = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        files.upload(
          url(),
          { bytes: files.textOfSize(11 * 1024 * 1024), filename: 'big.txt' },
          { headers: alice.headers },
        ),
      ),
    );
    busy = false;
    await background;
    const outcomes = uploads.map((u) =>
      u.status === 'fulfilled'
        ? `${u.value.status} ${u.value.body.detail}`
        : `${u.reason} ${(u.reason as { cause?: unknown }).cause}`,
    );
    expect(outcomes).to.deep.equal(Array(8).fill('413 The file exceeds the 10 MB limit'));
    expect(reads).to.be.greaterThan(0);
  });

  /** A raw client writing `body` whole, as fast as the socket takes it, with its Content-Length. */
  function rawPost(path: string, body: Buffer, contentType: string): Promise<string> {
    const target = new URL(t.publicUrl);
    return new Promise((resolve) => {
      const headers = { ...alice.headers, 'content-type': contentType, 'content-length': String(body.length) };
      const request = http.request({
        host: target.hostname,
        port: target.port,
        path,
        method: 'POST',
        headers,
        agent: false,
      });
      request.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve(`${response.statusCode} ${response.headers['content-type']?.split(';')[0]} ${text}`),
        );
      });
      request.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code ?? error.message}`));
      request.end(body);
    });
  }

  it('8 raw http.request clients writing 11 MB with a Content-Length each read the 413 in the error shape', async function () {
    this.timeout(120_000);
    const { body, contentType } = files.multipartBody({
      bytes: files.textOfSize(11 * 1024 * 1024),
      filename: 'big.txt',
    });
    const path = `/api/v1/conversations/${conversation}/attachments`;
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => rawPost(path, body, contentType)));
    expect(outcomes).to.deep.equal(Array(8).fill('413 application/json {"detail":"The file exceeds the 10 MB limit"}'));
    const json = Buffer.from(JSON.stringify({ agent_id: 'filing-agent', title: 'x'.repeat(11 * 1024 * 1024) }));
    const jsonOutcomes = await Promise.all(
      Array.from({ length: 8 }, () => rawPost('/api/v1/conversations', json, 'application/json')),
    );
    expect(new Set(jsonOutcomes).size, jsonOutcomes.join('\n')).to.equal(1);
    expect(jsonOutcomes[0]).to.match(
      /^413 application\/json \{"detail":"Request body too large: this route takes at most [\d.]+ [KM]B"\}$/,
    );
  });

  it(`a body declared beyond the drain bound (${DRAIN_BOUND_BYTES / 1024 / 1024} MB) is answered at once and the connection closed`, async () => {
    const target = new URL(url());
    const result = await new Promise<{ status: number; connection: string | undefined; closed: boolean }>(
      (resolve, reject) => {
        const request = http.request({
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            ...alice.headers,
            'content-type': 'multipart/form-data; boundary=x',
            'content-length': String(DRAIN_BOUND_BYTES * 4),
          },
        });
        request.on('response', (response) => {
          response.resume();
          const status = response.statusCode!;
          const connection = response.headers.connection;
          request.socket?.once('close', () => resolve({ status, connection, closed: true }));
        });
        request.on('error', (error) =>
          (error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE'
            ? undefined
            : reject(error),
        );
        request.write(Buffer.alloc(64 * 1024));
      },
    );
    expect(result).to.deep.equal({ status: 413, connection: 'close', closed: true });
  });

  it('a DOCX named .pdf is 415 naming both formats; the same bytes named .docx are read', async () => {
    const bytes = await files.docxWithParagraphs(['Spill report']);
    const wrong = await files.upload(url(), { bytes, filename: 'report.pdf' }, { headers: alice.headers });
    expect(wrong.status).to.equal(415);
    expect(wrong.body.detail).to.match(/extension \.pdf names PDF, but its bytes are DOCX/);
    const typed = await files.upload(
      url(),
      { bytes, filename: 'report', contentType: 'application/pdf' },
      { headers: alice.headers },
    );
    expect(typed.status).to.equal(415);
    expect(typed.body.detail).to.match(/declared type application\/pdf names PDF, but its bytes are DOCX/);
    const right = await files.upload(url(), { bytes, filename: 'report.docx' }, { headers: alice.headers });
    expect(right.status).to.equal(200);
  });

  it('a CSV declared as text/plain or named .txt is read (text formats are one family)', async () => {
    const csv = files.csvOf([
      ['api_number', 'oil'],
      ['42-123-45678', 120],
    ]);
    const response = await files.upload(
      url(),
      { bytes: csv, filename: 'wells.txt', contentType: 'text/plain' },
      { headers: alice.headers },
    );
    expect(response.status).to.equal(200);
    expect(response.body.content_type).to.equal('text/csv');
  });
});
