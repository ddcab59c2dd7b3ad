import path from 'node:path';
import { expect } from 'chai';
import {
  createExtractionPool,
  type ExtractionPool,
  extractText,
  UnreadableFile,
} from '../../../src/platform/infra/extraction';
import { UnsupportedMediaType } from '../../../src/platform/domain-errors';
import * as files from '../../support/files';
import { failure } from '../../support/failure';

const SPINNING_WORKER = path.join(__dirname, 'fixtures', 'spinning-extraction-worker.ts');

/** Ticks every 5 ms and reports the longest gap between ticks: how long the thread stalled. */
function heartbeat(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}

describe('the extraction worker pool', () => {
  describe('real extraction on worker threads', () => {
    let pool: ExtractionPool;
    before(() => {
      pool = createExtractionPool({ workers: 2, timeLimitMs: 30_000 });
    });
    after(() => pool.close());

    it('answers what in-thread extraction answers, for every kind', async () => {
      const inputs = [
        await files.pdfWithText([['Form PR for March 2026']]),
        await files.docxWithParagraphs(['Spill report', 'Volume: 12 bbl']),
        await files.xlsxWithSheets({
          Production: [
            ['well', 'oil_bbl'],
            ['A-1', 120],
          ],
        }),
        files.csvOf([
          ['well', 'oil'],
          ['A-1', 1],
        ]),
        Buffer.from('Inspector notes'),
      ];
      for (const bytes of inputs) expect(await pool.extract(bytes)).to.deep.equal(await extractText(bytes));
    });

    it('brings refusals back with their type and reason, and leaves the caller its bytes', async () => {
      const encrypted = files.encryptedPdf();
      const error = await failure(pool.extract(encrypted));
      expect(error).to.be.instanceOf(UnreadableFile).and.include({ reason: 'encrypted' });
      expect((error as UnreadableFile).issues[0])
        .to.include({ type: 'file.encrypted' })
        .and.property('msg')
        .match(/password-protected/);
      expect(await failure(pool.extract(files.grayscalePng(4, 4)))).to.be.instanceOf(UnsupportedMediaType);
      expect(encrypted.subarray(0, 5).toString()).to.equal('%PDF-');
    });

    it('reads several files at once', async () => {
      const texts = Array.from({ length: 6 }, (_, i) => `file number ${i}`);
      const results = await Promise.all(texts.map((t) => pool.extract(Buffer.from(t))));
      expect(results.map((r) => r.text)).to.deep.equal(texts);
    });

    it('keeps the calling thread free while a slow document is read', async () => {
      // 1,500 pages without text before the one that has some: every page must be opened.
      const { PDFDocument, StandardFonts } = await import('pdf-lib');
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(StandardFonts.Helvetica);
      for (let i = 0; i < 1500; i++) doc.addPage([612, 792]);
      doc.getPage(1499).drawText('the last page', { x: 50, y: 700, size: 11, font });
      const bytes = Buffer.from(await doc.save());
      await pool.extract(Buffer.from('warm-up'));
      const beat = heartbeat();
      const started = performance.now();
      const result = await pool.extract(bytes);
      const took = performance.now() - started;
      const stall = beat.stop();
      expect(result.text).to.equal('the last page');
      expect(stall, `longest stall ${stall.toFixed(0)} ms during a ${took.toFixed(0)} ms read`).to.be.below(
        Math.max(100, took / 3),
      );
    });
  });

  describe('limits', () => {
    it('terminates a worker past the time limit, answers "took too long" and serves the next file with a fresh worker', async () => {
      // The limit also covers a fresh worker's start-up (tsx compiling it), which takes a second on a
      // busy machine: 3 s keeps 'hello' inside it, and the spinning task still runs past it.
      const pool = createExtractionPool({ workers: 1, timeLimitMs: 3000, script: SPINNING_WORKER });
      try {
        expect((await pool.extract(Buffer.from('hello'))).text).to.equal('hello');
        const queued = pool.extract(Buffer.from('after the spin'));
        const error = await failure(pool.extract(Buffer.from('spin')));
        expect(error).to.be.instanceOf(UnreadableFile).and.include({ reason: 'timeout' });
        expect((error as UnreadableFile).issues[0].msg).to.match(/^The file took too long to read/);
        expect((await queued).text).to.equal('after the spin');
      } finally {
        await pool.close();
      }
    });

    it('refuses work once closed and rejects what was still queued', async () => {
      const pool = createExtractionPool({ workers: 1, timeLimitMs: 5000, script: SPINNING_WORKER });
      const spinning = failure(pool.extract(Buffer.from('spin')));
      // Also stuck: the pool may start a burst worker for it, and it must still be cut off by close.
      const queued = failure(pool.extract(Buffer.from('spin')));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await pool.close();
      expect(await spinning).to.match(/closed/);
      expect(await queued).to.match(/closed/);
      expect(await failure(pool.extract(Buffer.from('late')))).to.match(/closed/);
    });
  });
});
