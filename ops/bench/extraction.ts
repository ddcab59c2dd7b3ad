import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import express from 'express';
import { errorHandler } from '../../src/platform/http/errors';
import { readUpload } from '../../src/platform/http/multipart';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createExtractionPool, extractText, sniff, UPLOAD_LIMIT_BYTES } from '../../src/platform/infra/extraction';
import { extractDocx } from '../../src/platform/infra/extraction/docx';
import { extractPdf } from '../../src/platform/infra/extraction/pdf';
import { extractXlsx } from '../../src/platform/infra/extraction/xlsx';
import * as files from '../../tests/support/files';
import type { BenchRow } from './support';

/**
 * Extraction throughput per file type (MB of input per second) for the full read and for
 * the upload path (which stops once it holds the ~8,000 tokens it keeps), and the peak
 * memory one 10 MB upload costs the server (multipart stream + extraction), measured
 * in-process with a client that streams its body instead of holding it.
 */
const MB = 1024 * 1024;

async function fixtures(): Promise<Record<string, Buffer>> {
  const page = Array.from(
    { length: 45 },
    (_, i) => `Line ${i}: well 42-123-${String(10000 + i)} produced 1250 bbl of oil and 3400 mcf of gas.`,
  );
  const rows = Array.from({ length: 60_000 }, (_, i) => [
    `42-123-${10000 + i}`,
    'Permian',
    i % 400,
    (i * 7) % 1000,
    '2026-03',
  ]);
  return {
    txt: files.textOfSize(10 * MB - 4096),
    csv: files.csvOf([['api_number', 'basin', 'oil_bbl', 'gas_mcf', 'month'], ...rows]),
    pdf: await files.pdfWithText(Array.from({ length: 400 }, () => page)),
    xlsx: await files.xlsxWithSheets({ Production: rows.slice(0, 30_000), Injection: rows.slice(30_000) }),
    docx: await files.docxWithParagraphs(
      Array.from(
        { length: 40_000 },
        (_, i) => `Paragraph ${i}: the operator reported a spill of ${i % 90} bbl at lease ${1000 + i}.`,
      ),
    ),
  };
}

async function fullRead(kind: string, bytes: Buffer): Promise<void> {
  const all = Number.MAX_SAFE_INTEGER;
  if (kind === 'pdf') await extractPdf(bytes, all);
  else if (kind === 'xlsx') await extractXlsx(bytes, all);
  else if (kind === 'docx') await extractDocx(bytes, all);
  else await sniff(bytes);
}

async function throughput(fn: () => Promise<unknown>, bytes: number): Promise<number> {
  await fn(); // warm-up: module loads, JIT
  const runs = 3;
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) await fn();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9 / runs;
  return bytes / MB / seconds;
}

function gc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

async function uploadPeakMemory(bytes: Buffer): Promise<{ heapMb: number; rssMb: number; status: number }> {
  const app = express();
  app.post('/upload', async (req, res) => {
    const file = await readUpload(req, res, { maxBytes: UPLOAD_LIMIT_BYTES });
    const extracted = await extractText(file.bytes);
    res.json({ tokens: extracted.tokenEstimate });
  });
  app.use(errorHandler);
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const { body, contentType } = files.multipartBody({ bytes, filename: 'upload.bin' });
  // The client streams from a generator over the shared buffer so it adds no copy of its own.
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= body.length) return controller.close();
      controller.enqueue(new Uint8Array(body.subarray(offset, offset + 64 * 1024)));
      offset += 64 * 1024;
    },
  });
  gc();
  const base = process.memoryUsage();
  let heap = 0;
  let rss = 0;
  const sample = () => {
    const now = process.memoryUsage();
    heap = Math.max(heap, now.heapUsed + now.arrayBuffers - base.heapUsed - base.arrayBuffers);
    rss = Math.max(rss, now.rss - base.rss);
  };
  const timer = setInterval(sample, 2);
  const response = await fetch(`http://127.0.0.1:${port}/upload`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  await response.text();
  sample();
  clearInterval(timer);
  server.close();
  // The request body itself (the shared buffer) existed before the baseline; count it out.
  return { heapMb: heap / MB, rssMb: rss / MB, status: response.status };
}

/** The longest the request thread stalls while uploads of every kind are read by the pool. */
async function eventLoopStallThroughPool(inputs: Record<string, Buffer>): Promise<number> {
  const pool = createExtractionPool({ workers: 2, timeLimitMs: 60_000 });
  try {
    await pool.extract(inputs.txt); // worker start-up is not part of an upload
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    for (let i = 0; i < 2; i++) await Promise.all(Object.values(inputs).map((bytes) => pool.extract(bytes)));
    delay.disable();
    return delay.max / 1e6;
  } finally {
    await pool.close();
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const inputs = await fixtures();
  // Memory first, while the heap is small: later runs leave a grown heap behind. pdfjs is
  // loaded beforehand, as in a server that has served a PDF already: its one-time module
  // load is not the cost of an upload.
  await extractText(await files.pdfWithText([['warm-up']]));
  const page = ['Monthly production report, lease 12345, Permian basin.'];
  const uploads = { txt: inputs.txt, pdf: await files.scannedReportPdf(6.7, [page, page, page]) };
  for (const [kind, bytes] of Object.entries(uploads)) {
    const peak = await uploadPeakMemory(bytes);
    if (peak.status !== 200) throw new Error(`bench upload of ${kind} answered ${peak.status}`);
    const size = (bytes.length / MB).toFixed(1);
    rows.push({
      name: `peak heap+buffers, one ${size} MB ${kind} upload`,
      value: peak.heapMb,
      unit: 'MB',
      target: '< 100 MB',
    });
    rows.push({
      name: `peak RSS growth, one ${size} MB ${kind} upload`,
      value: peak.rssMb,
      unit: 'MB',
      target: '< 100 MB',
    });
  }
  for (const [kind, bytes] of Object.entries(inputs)) {
    const size = `${(bytes.length / MB).toFixed(1)} MB`;
    rows.push({
      name: `${kind} full read (${size})`,
      value: await throughput(() => fullRead(kind, bytes), bytes.length),
      unit: 'MB/s',
    });
    rows.push({
      name: `${kind} upload path, 8k tokens kept (${size})`,
      value: await throughput(() => extractText(bytes), bytes.length),
      unit: 'MB/s',
    });
  }
  rows.push({
    name: 'max event-loop stall, all five kinds read twice by the worker pool',
    value: await eventLoopStallThroughPool(inputs),
    unit: 'ms',
    target: '< 50 ms',
  });
  return rows;
}
