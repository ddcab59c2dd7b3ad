import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../../src/platform/eventstore/types';
import { signIn } from '../../support/auth';
import { eventually } from '../../support/eventually';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { toyContext } from '../../support/toy-context';

/** The Debian `prometheus` binary, or null where it is not installed (`.ci/run` installs it). */
function prometheusBinary(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
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

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * The real thing: Prometheus scrapes the platform's internal listener every second, and the
 * assertions go through its HTTP API, so the exposition is one Prometheus accepts and the
 * series are the ones the alert rules and the dashboard query.
 */
describe('Prometheus scrapes the platform', function () {
  let t: TestPlatform;
  let prometheus: ChildProcess | null = null;
  let dir = '';
  let prometheusUrl = '';
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const holdTitle = `held-${randomUUID()}`;

  before(async function () {
    const binary = prometheusBinary();
    if (!binary) return this.skip();
    const toy = toyContext();
    const [notes] = toy.projectors!;
    // A projector that waits on one event until the test lets it go: its lane's lag moves.
    toy.projectors = [
      {
        ...notes,
        applyBatch: undefined,
        apply: async (trx: Knex.Transaction, event: RecordedEvent) => {
          if ((event.data as { title?: string }).title === holdTitle) await held;
          await notes.apply(trx, event);
        },
      },
    ];
    t = await startTestPlatform({ contexts: [toy], env: { PROJECTION_WAIT_MS: '100' } });
    dir = mkdtempSync(path.join(tmpdir(), 'prometheus-'));
    const target = new URL(t.internalUrl).host;
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'scrape_configs:',
        '  - job_name: platform',
        '    metrics_path: /metrics',
        `    static_configs: [{ targets: ['${target}'] }]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      binary,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: 'ignore' },
    );
    await eventually(async () => (await query('up{job="platform"}'))[0]?.value[1] === '1', 30_000);
  });

  after(async () => {
    release();
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  async function query(promql: string): Promise<Sample[]> {
    try {
      const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await response.json()) as { status: string; data?: { result: Sample[] } };
      return body.status === 'success' ? body.data!.result : [];
    } catch {
      return []; // not listening yet
    }
  }

  const value = async (promql: string): Promise<number | null> => {
    const [first] = await query(promql);
    return first ? Number(first.value[1]) : null;
  };

  it('lane lag and the HTTP histogram exist, and move after a write', async () => {
    const lag = 'lane_lag_events{job="platform",kind="projection",lane="toy_notes"}';
    const posts = 'sum(http_request_duration_seconds_count{job="platform",method="POST",route="/api/v1/toy/notes"})';
    await eventually(async () => (await value(lag)) === 0, 20_000);
    // Prometheus's own scrapes are requests too: the histogram exists before any write.
    await eventually(
      async () => ((await value('count(http_request_duration_seconds_bucket{job="platform"})')) ?? 0) > 0,
    );
    expect(await value(posts)).to.equal(null);

    const auth = (await signIn(t)).headers;
    const created = await t.api.post('/toy/notes', { title: holdTitle }, auth);
    expect(created.status).to.equal(201);

    await eventually(async () => (await value(lag)) === 1, 20_000);
    await eventually(async () => (await value(posts)) === 1, 20_000);
    const seconds = 'lane_lag_seconds{job="platform",kind="projection",lane="toy_notes"}';
    await eventually(async () => ((await value(seconds)) ?? 0) > 0, 20_000);

    release();
    await eventually(async () => (await value(lag)) === 0, 20_000);
  });
});
