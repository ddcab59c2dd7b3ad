import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { BenchRow } from './support';

/**
 * The platform's own memory, measured black-box: `ops/cli.ts start` as a
 * child process on a fresh embedded PostgreSQL (a process of its own, not counted), seeded
 * with `ops seed`, then sampled from /proc (VmRSS: the whole process, worker threads
 * included) every 20 ms.
 *
 * - idle RSS: started, seeded, left alone for 10 s;
 * - peak RSS under hostile uploads, all at once over HTTP: three 11 MB files (past the 10 MB
 *   limit: each must still answer 413), two slow PDFs (thousands of empty pages, seconds of
 *   a worker each) and a burst of small text uploads, 8 in flight;
 * - RSS once the extraction workers have gone idle and exited.
 *
 * BENCH_MEMORY_CHECKOUT=<dir> measures another checkout (with its node_modules) instead, so
 * a before/after pair comes from one machine state.
 */
const SLOW_PAGES = Number(process.env.BENCH_SLOW_PDF_PAGES ?? 5000);
const SMALL_UPLOADS = Number(process.env.BENCH_SMALL_UPLOADS ?? 60);
const IDLE_MS = 3000;

const MB = 1024 * 1024;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the platform exited with code ${child.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

function runToEnd(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`)),
    );
  });
}

async function slowPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage([612, 792]);
  // Text on the first and the last page: the reader goes through every page (up to its cap).
  for (const n of [0, pages - 1])
    doc.getPage(n).drawText('Annual inspection summary', { x: 50, y: 700, size: 11, font });
  return Buffer.from(await doc.save());
}

export async function run(): Promise<BenchRow[]> {
  const checkout = process.env.BENCH_MEMORY_CHECKOUT ?? path.resolve(__dirname, '../..');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'platform-memory-'));
  const [port, internalPort] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    PORT: String(port),
    INTERNAL_PORT: String(internalPort),
    HOST: '127.0.0.1',
    BOOTSTRAP_ADMIN_EMAIL: 'memory-bench@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'memory-bench-password-1',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_BURST: '100000',
    EXTRACTION_IDLE_MS: String(IDLE_MS),
    LOG_LEVEL: 'warn',
  };
  const platform = spawn(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'start'], {
    cwd: checkout,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const pid = platform.pid!;
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/health`, platform, 120_000);
    await runToEnd(['--import', 'tsx', 'ops/cli.ts', 'seed'], checkout, env);
    await new Promise((r) => setTimeout(r, 10_000));
    const idle = rssOf(pid);

    const login = await fetch(`${base}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: env.BOOTSTRAP_ADMIN_EMAIL, password: env.BOOTSTRAP_ADMIN_PASSWORD }),
    });
    const token = /svc_token=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    if (!token) throw new Error(`login failed: ${login.status}`);
    const headers = { authorization: `Bearer ${token}` };
    // A conversation per upload in flight: attachments to one conversation contend for its stream.
    const conversation = async () =>
      (
        (await (
          await fetch(`${base}/api/v1/conversations`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ agent_id: 'compliance' }),
          })
        ).json()) as { id: string }
      ).id;
    const conversations = await Promise.all(Array.from({ length: 13 }, conversation));
    /** The status, and for a refusal its type (`413`, `422 file.timeout`). */
    const upload = async (lane: number, bytes: Buffer, filename: string, type: string) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type }), filename);
      const response = await fetch(`${base}/api/v1/conversations/${conversations[lane]}/attachments`, {
        method: 'POST',
        headers,
        body: form,
      });
      const body = (await response.json().catch(() => ({}))) as { detail?: Array<{ type?: string }> };
      return response.status === 422 && Array.isArray(body.detail)
        ? `422 ${body.detail[0]?.type}`
        : String(response.status);
    };

    const pdf = await slowPdf(SLOW_PAGES);
    const big = Buffer.alloc(11 * MB, 'Inspector notes: valve replaced. ');
    let peak = rssOf(pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
    const started = performance.now();
    let smallDone = 0;
    const smallStatuses: string[] = [];
    const burst = async (lane: number) => {
      while (smallDone < SMALL_UPLOADS) {
        const n = smallDone++;
        smallStatuses.push(
          await upload(
            lane,
            Buffer.from(`Inspector notes ${n}: valve replaced on well 42-501-${10000 + n}.`),
            `notes-${n}.txt`,
            'text/plain',
          ),
        );
      }
    };
    const [bigStatuses, pdfStatuses] = await Promise.all([
      Promise.all([0, 1, 2].map((i) => upload(i, big, `big-${i}.txt`, 'text/plain'))),
      Promise.all([0, 1].map((i) => upload(3 + i, pdf, `slow-${i}.pdf`, 'application/pdf'))),
      Promise.all(Array.from({ length: 8 }, (_, i) => burst(5 + i))),
    ]);
    const loadSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    await new Promise((r) => setTimeout(r, IDLE_MS + 3000));
    const after = rssOf(pid);

    const count = (statuses: string[]) =>
      Object.entries(statuses.reduce<Record<string, number>>((acc, s) => ((acc[s] = (acc[s] ?? 0) + 1), acc), {}))
        .map(([s, n]) => `${n}×${s}`)
        .join(' ');
    const label = process.env.BENCH_MEMORY_CHECKOUT ? ` (${path.basename(checkout)})` : '';
    return [
      { name: `idle RSS after start + seed${label}`, value: Math.round(idle / MB), unit: 'MB', target: '≤ 250' },
      {
        name: `peak RSS: 3×11 MB + 2 slow PDFs (${SLOW_PAGES} pages) + ${SMALL_UPLOADS} small${label}`,
        value: Math.round(peak / MB),
        unit: 'MB',
        target: '≤ 500',
      },
      {
        name: `RSS ${((IDLE_MS + 3000) / 1000).toFixed(0)} s after the load (idle workers exited)${label}`,
        value: Math.round(after / MB),
        unit: 'MB',
      },
      {
        name: `mixed load took; statuses 11 MB: ${count(bigStatuses)}, PDFs: ${count(pdfStatuses)}, small: ${count(smallStatuses)}`,
        value: loadSeconds,
        unit: 's',
      },
    ];
  } finally {
    platform.kill('SIGTERM');
    await new Promise((resolve) => (platform.exitCode !== null ? resolve(undefined) : platform.once('exit', resolve)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
