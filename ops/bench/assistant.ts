import { type BenchRow, startBenchPlatform } from './support';

/**
 * The builtin assistant on a seeded, assessed 200-well portfolio: 20 fixed questions of a
 * compliance engineer (portfolio buckets, one well's status, deadlines, flaring, production,
 * offsets, events, a checklist, a filing for review), each a whole POST /execute turn (tool
 * rounds included) in a new conversation, five passes. Reports the median and p95 turn time
 * and that every turn ended as expected (completed, or awaiting review for the filing).
 */
const median = (sorted: number[]) => sorted[Math.floor(sorted.length / 2)];
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export function questions(well: string, other: string): string[] {
  return [
    'Which of my wells have overdue filings?',
    'How many wells are overdue?',
    'Which operator has the most overdue wells?',
    'Which lease has the most overdue wells?',
    'What is due in the next 7 days?',
    'What is due in the next 30 days?',
    'Any anomalies in the portfolio?',
    `Is well ${well} compliant?`,
    `Is well ${other} in compliance?`,
    `What are the deadlines of well ${well}?`,
    `What is the flaring authorization of well ${well}?`,
    `Summarize last month's production of well ${well}`,
    `How much oil did well ${other} produce in 2025-12?`,
    `Does well ${well} meet Rule 37 spacing with its offsets?`,
    `What is the impact if well ${well} goes down?`,
    'Show recent operational events',
    `Log a flare upset at well ${other}: 120 mcf over 3 hours after a compressor outage`,
    `Prepare the R-32 for well ${other}`,
    `Prepare the Form PR for well ${well} for December 2025 and submit it for review`,
    'What file formats can I attach?',
  ];
}

export async function run(): Promise<BenchRow[]> {
  const bench = await startBenchPlatform();
  try {
    const user = await bench.session({ roles: ['admin'] });
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${bench.api}${path}`, {
        method: 'POST',
        headers: user.headers,
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as any;
      if (response.status >= 300) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(json)}`);
      return json;
    };
    await post('/graph/seed', { wells: 200, seed: 42, as_of: '2026-01' });
    await post('/compliance/assess', {});
    const matrix = (await (
      await fetch(`${bench.api}/compliance/matrix?page_size=2&bucket=overdue`, { headers: user.headers })
    ).json()) as { rows: Array<{ entity_id: string }> };
    const [well, other] = matrix.rows.map((r) => r.entity_id);
    const asked = questions(well, other);
    const times: number[] = [];
    const byQuestion = new Map<string, number[]>();
    let unexpected = 0;
    const passes = 5;
    for (let pass = 0; pass < passes + 1; pass++) {
      for (const message of asked) {
        const { id } = await post('/conversations', { agent_id: 'bench' });
        const started = performance.now();
        const result = await post('/execute', { conversation_id: id, message });
        const elapsed = performance.now() - started;
        if (!['completed', 'awaiting_hitl'].includes(result.status)) unexpected++;
        if (pass === 0) continue; // the first pass warms up
        times.push(elapsed);
        byQuestion.set(message, [...(byQuestion.get(message) ?? []), elapsed]);
      }
    }
    times.sort((a, b) => a - b);
    // The slowest questions by their own median: where a turn's time goes.
    const slowest = [...byQuestion.entries()]
      .map(([q, ts]) => ({ q, median: median(ts.sort((a, b) => a - b)) }))
      .sort((a, b) => b.median - a.median)
      .slice(0, 3);
    return [
      { name: 'questions', value: asked.length, unit: 'questions' },
      { name: 'turn time median', value: median(times), unit: 'ms' },
      { name: 'turn time p95', value: percentile(times, 95), unit: 'ms' },
      { name: 'turns not completed', value: unexpected, unit: 'turns', target: '0' },
      ...slowest.map((s) => ({
        name: `slow: ${s.q.replace(/\b42-\d{3}-\d{5}\b/g, 'API').slice(0, 48)}`,
        value: s.median,
        unit: 'ms',
      })),
    ];
  } finally {
    await bench.platform.stop();
  }
}
