import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createExtractionPool } from '../../src/platform/infra/extraction';
import type { BenchRow } from './support';

/**
 * Slow uploads and small ones: two PDFs with thousands of empty pages, each
 * holding a worker for seconds, and a small text file sent after them. Measures how long
 * the small file waits, how the two slow ones share the pool, and the process's peak RSS
 * (worker threads included) while they are read.
 */
const PAGES = Number(process.env.BENCH_SLOW_PDF_PAGES ?? 20_000);

async function slowPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage([612, 792]);
  doc.getPage(pages - 1).drawText('Annual inspection summary', { x: 50, y: 700, size: 11, font });
  return Buffer.from(await doc.save());
}

export async function run(): Promise<BenchRow[]> {
  const pdf = await slowPdf(PAGES);
  const pool = createExtractionPool({ workers: 2, timeLimitMs: 120_000 });
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  try {
    const bootStarted = performance.now();
    await pool.extract(Buffer.from('warm up the workers'));
    const bootMs = performance.now() - bootStarted;
    const started = performance.now();
    // Each slow PDF's time and outcome: read, or refused (time limit, memory ceiling).
    const outcomes: string[] = [];
    const slow = [
      pool.extract(pdf, { declared: { filename: 'a.pdf' } }),
      pool.extract(Buffer.from(pdf), { declared: { filename: 'b.pdf' } }),
    ].map((p) =>
      p
        .then(
          () => outcomes.push('read'),
          (error: Error & { reason?: string }) => outcomes.push(`refused (${error.reason ?? error.message})`),
        )
        .then(() => performance.now() - started),
    );
    await new Promise((r) => setTimeout(r, 200));
    const smallStarted = performance.now();
    await pool.extract(Buffer.from('Inspector notes: valve replaced.'));
    const smallMs = performance.now() - smallStarted;
    const [first, second] = (await Promise.all(slow)).sort((a, b) => a - b);
    return [
      {
        name: `slow PDF (${PAGES.toLocaleString('en-US')} pages, ${(pdf.length / 1024 / 1024).toFixed(1)} MB): first done`,
        value: first / 1000,
        unit: 's',
      },
      {
        name: `slow PDF: second done (heavy lane: one at a time); outcomes: ${outcomes.join(', ')}`,
        value: second / 1000,
        unit: 's',
      },
      { name: 'small upload sent behind two slow ones: extracted in', value: smallMs, unit: 'ms', target: '< 1000' },
      {
        name: 'peak RSS while both slow PDFs are read',
        value: Math.round(peak / 1024 / 1024),
        unit: 'MB',
        target: '< 500',
      },
      { name: 'RSS before', value: Math.round(baseline / 1024 / 1024), unit: 'MB' },
      { name: 'first extraction on a cold pool (a worker starting)', value: bootMs, unit: 'ms' },
    ];
  } finally {
    clearInterval(sampler);
    await pool.close();
  }
}
