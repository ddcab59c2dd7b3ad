import { randomUUID } from 'node:crypto';
import { type BenchRow, startBenchPlatform } from './support';

/**
 * Approvals and checklists over HTTP: request + decide latency, contested decisions (eight
 * reviewers at once, exactly one winner each) and a whole Form PR workspace assessment
 * streamed to its `assessment_complete` frame.
 */
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

async function post(url: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = (await response.json().catch(() => null)) as any;
  return { status: response.status, body: json };
}

/** Milliseconds until the stream's `assessment_complete` frame, and how many frames came. */
async function streamAssessment(url: string, headers: Record<string, string>): Promise<{ ms: number; frames: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' } });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let frames = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended before assessment_complete');
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (block.includes('\ndata: ')) frames++;
      if (block.includes('event: assessment_complete')) {
        await reader.cancel();
        return { ms: performance.now() - started, frames };
      }
    }
  }
}

export async function run(): Promise<BenchRow[]> {
  const bench = await startBenchPlatform();
  try {
    const tenantId = randomUUID();
    const operator = await bench.session({ tenantId, roles: ['operator'] });
    const admin = await bench.session({ tenantId, roles: ['admin'] });
    const reviewers = await Promise.all(
      Array.from({ length: 8 }, () => bench.session({ tenantId, roles: ['reviewer'] })),
    );
    const rows: BenchRow[] = [];

    const decideMs: number[] = [];
    for (let i = 0; i < 100; i++) {
      const created = await post(
        `${bench.api}/approvals`,
        { agent_type: 'bench', checkpoint_type: 'filing_review', payload: { i } },
        operator.headers,
      );
      const started = performance.now();
      const decided = await post(
        `${bench.api}/approvals/${created.body.approval_id}/decide`,
        { decision: 'approved' },
        reviewers[0].headers,
      );
      decideMs.push(performance.now() - started);
      if (decided.status !== 200) throw new Error(`decide answered ${decided.status}`);
    }
    rows.push({ name: 'decide p50', value: percentile(decideMs, 50), unit: 'ms', target: '<= 50' });
    rows.push({ name: 'decide p95', value: percentile(decideMs, 95), unit: 'ms', target: '<= 150' });

    let contestedMs = 0;
    for (let i = 0; i < 20; i++) {
      const created = await post(
        `${bench.api}/approvals`,
        { agent_type: 'bench', checkpoint_type: 'filing_review', payload: {} },
        operator.headers,
      );
      const started = performance.now();
      const answers = await Promise.all(
        reviewers.map((r) =>
          post(`${bench.api}/approvals/${created.body.approval_id}/decide`, { decision: 'rejected' }, r.headers),
        ),
      );
      contestedMs += performance.now() - started;
      const winners = answers.filter((a) => a.status === 200).length;
      const losers = answers.filter((a) => a.status === 409).length;
      if (winners !== 1 || losers !== reviewers.length - 1)
        throw new Error(
          `contested decision: ${winners} winners, ${losers} conflicts: ${JSON.stringify(answers.filter((a) => a.status !== 409))}`,
        );
    }
    rows.push({
      name: '8 contested deciders, all answered (1 win)',
      value: contestedMs / 20,
      unit: 'ms',
      target: '<= 500',
    });

    const api = `42-501-${String(10000 + Math.floor(Math.random() * 89999))}`;
    const now = new Date();
    const period = `${now.getUTCFullYear()}-${String(now.getUTCMonth() || 12).padStart(2, '0')}`;
    await post(
      `${bench.api}/graph/entities`,
      {
        label: 'Well',
        properties: {
          entity_id: api,
          api_number: api,
          well_type: 'oil',
          form_pr_period: period,
          production_oil_bbls: 3000,
          production_gas_mcf: 9000,
          gas_used_on_lease_mcf: 270,
          gas_sold_mcf: 8130,
          gas_flared_mcf: 600,
          gas_vented_mcf: 0,
          producing_days: 30,
          latitude: '33.1',
          longitude: '-102.8',
        },
      },
      admin.headers,
    );
    const runMs: number[] = [];
    let frames = 0;
    for (let i = 0; i < 5; i++) {
      const checklist = await post(
        `${bench.api}/checklists`,
        { template_id: 'form_pr', entity_id: api, entity_type: 'well', period },
        operator.headers,
      );
      if (checklist.status !== 201) throw new Error(`checklist create answered ${checklist.status}`);
      const result = await streamAssessment(
        `${bench.api}/workspaces/${checklist.body.checklist_id}/stream`,
        operator.headers,
      );
      runMs.push(result.ms);
      frames = result.frames;
    }
    rows.push({
      name: `Form PR assessment streamed (${frames} frames), median`,
      value: percentile(runMs, 50),
      unit: 'ms',
      target: '<= 3000',
    });
    return rows;
  } finally {
    await bench.close();
  }
}
