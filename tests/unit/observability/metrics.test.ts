import { expect } from 'chai';
import { createPlatformMetrics, type RuntimeSnapshot } from '../../../src/platform/observability/metrics';
import { agentMeters } from '../../../src/contexts/agents/metrics';
import { ingestionMeters } from '../../../src/contexts/ingestion/metrics';

const metadata = (tenantId: string) => ({ tenantId });

async function value(
  metrics: ReturnType<typeof createPlatformMetrics>,
  name: string,
  labels: Record<string, string> = {},
) {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const found = values.find((v) => Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l));
  return found?.value ?? null;
}

const snapshot = (lanes: RuntimeSnapshot['lanes']): RuntimeSnapshot => ({
  lanes,
  kinds: [
    { kind: 'projection', subscribed: true, leader: true },
    { kind: 'scheduler', subscribed: null, leader: false },
  ],
  scheduled: { due: 3, overdue: 1 },
  pools: [{ pool: 'events', inUse: 2, waiting: 0 }],
});

describe('platform metrics', () => {
  it('each instance has a registry of its own: a second one registers without a duplicate error and counts apart', async () => {
    const first = createPlatformMetrics();
    const second = createPlatformMetrics();
    first.appends.inc({ result: 'ok' });
    expect(await value(first, 'eventstore_appends_total', { result: 'ok' })).to.equal(1);
    expect(await value(second, 'eventstore_appends_total', { result: 'ok' })).to.equal(null);
    expect(await first.exposition()).to.include('process_cpu_user_seconds_total');
    expect(await createPlatformMetrics({ defaultMetrics: false }).exposition()).to.not.include('process_cpu');
  });

  it('tenants beyond the configured cap share the label `other`; 0 labels none', () => {
    const metrics = createPlatformMetrics({ tenantLabels: 2, defaultMetrics: false });
    expect(['a', 'b', 'c', 'a', 'd'].map((t) => metrics.tenant(t))).to.deep.equal(['a', 'b', 'other', 'a', 'other']);
    expect(createPlatformMetrics({ tenantLabels: 0, defaultMetrics: false }).tenant('a')).to.equal('other');
  });

  it("a model's provider is its id's prefix", () => {
    const metrics = createPlatformMetrics({ defaultMetrics: false });
    expect(metrics.model('anthropic/claude-sonnet-4')).to.deep.equal({
      model: 'anthropic/claude-sonnet-4',
      provider: 'anthropic',
    });
    expect(metrics.model('builtin/deterministic').provider).to.equal('builtin');
  });

  it('the lane gauges show the runtime report at scrape time, and a lane that is gone disappears', async () => {
    const metrics = createPlatformMetrics({ defaultMetrics: false });
    let lanes: RuntimeSnapshot['lanes'] = [
      { kind: 'projection', lane: 'notes', lagEvents: 4, lagSeconds: 12.5, deadLetters: 1 },
      { kind: 'reactor', lane: 'approvals.open', lagEvents: 0, lagSeconds: 0, deadLetters: 0 },
    ];
    let reads = 0;
    metrics.observeRuntime(async () => {
      reads++;
      return snapshot(lanes);
    });
    const text = await metrics.exposition();
    expect(reads, 'one read per scrape, shared by every gauge').to.equal(1);
    expect(text).to.include('lane_lag_events{kind="projection",lane="notes"} 4');
    expect(text).to.include('lane_lag_seconds{kind="projection",lane="notes"} 12.5');
    expect(text).to.include('lane_dead_letters{kind="projection",lane="notes"} 1');
    expect(text).to.include('lane_leader{kind="scheduler"} 0');
    expect(text).to.include('lane_subscription_up{kind="projection"} 1');
    expect(text).to.not.include('lane_subscription_up{kind="scheduler"}');
    expect(text).to.include('scheduled_messages_overdue 1');
    expect(text).to.include('db_pool_connections_in_use{pool="events"} 2');
    lanes = lanes.slice(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(await metrics.exposition()).to.not.include('lane="notes"');
  });

  it('a runtime that cannot be read leaves the lane gauges empty rather than failing the scrape', async () => {
    const metrics = createPlatformMetrics({ defaultMetrics: false });
    metrics.observeRuntime(() => Promise.reject(new Error('database gone')));
    const text = await metrics.exposition();
    expect(text).to.include('# TYPE lane_lag_seconds gauge');
    expect(text).to.not.include('lane_lag_seconds{');
  });

  it('lane retries and dead letters are counted by kind, lane and cause; idle batches are not timed', async () => {
    const metrics = createPlatformMetrics({ defaultMetrics: false });
    metrics.laneBatch('projection', 'notes', 0, 1);
    metrics.laneBatch('projection', 'notes', 5, 0.02);
    metrics.laneRetry('reactor', 'approvals.open', 'stall');
    metrics.laneFailed('scheduler', 'scheduler', false);
    metrics.laneFailed('scheduler', 'scheduler', true);
    const text = await metrics.exposition();
    expect(text).to.include('lane_batch_duration_seconds_count{kind="projection",lane="notes"} 1');
    expect(text).to.include('lane_retries_total{kind="reactor",lane="approvals.open",cause="stall"} 1');
    expect(text).to.include('lane_retries_total{kind="scheduler",lane="scheduler",cause="handler"} 1');
    expect(text).to.include('lane_dead_lettered_total{kind="scheduler",lane="scheduler"} 1');
  });

  it('the agents meters count ended turns by status and tokens and cost by model, provider and tenant', async () => {
    const metrics = createPlatformMetrics({ defaultMetrics: false, tenantLabels: 1 });
    metrics.addEventMeters(agentMeters);
    const outcome = (status: string) => ({ outcome: { status } });
    metrics.observeEvents([
      { type: 'TurnStarted', data: {}, metadata: metadata('t1') },
      {
        type: 'UsageRecorded',
        data: { model: 'openai/gpt-4o', inputTokens: 100, outputTokens: 20, tokensUsed: 120, costUsd: 0.5 },
        metadata: metadata('t1'),
      },
      { type: 'TurnCompleted', data: outcome('completed'), metadata: metadata('t1') },
      {
        type: 'UsageRecorded',
        data: {
          model: 'builtin/deterministic',
          inputTokens: null,
          outputTokens: null,
          tokensUsed: null,
          costUsd: null,
        },
        metadata: metadata('t2'),
      },
      { type: 'TurnPaused', data: outcome('awaiting_hitl'), metadata: metadata('t2') },
      { type: 'TurnFailed', data: {}, metadata: metadata('t2') },
    ]);
    const labels = { model: 'openai/gpt-4o', provider: 'openai', tenant: 't1' };
    expect(await value(metrics, 'agent_turns_total', { status: 'completed', tenant: 't1' })).to.equal(1);
    expect(await value(metrics, 'agent_turns_total', { status: 'awaiting_hitl', tenant: 'other' })).to.equal(1);
    expect(await value(metrics, 'model_tokens_total', { ...labels, direction: 'input' })).to.equal(100);
    expect(await value(metrics, 'model_tokens_total', { ...labels, direction: 'output' })).to.equal(20);
    expect(await value(metrics, 'model_cost_usd_total', labels)).to.equal(0.5);
    // Unknown usage adds nothing, and a malformed event (no outcome) costs its count, not the append.
    expect(await value(metrics, 'model_tokens_total', { model: 'builtin/deterministic' })).to.equal(null);
    expect(await value(metrics, 'agent_turns_total', { status: 'error' })).to.equal(null);
  });

  it('the ingestion meter counts accepted and rejected rows once per import', async () => {
    const metrics = createPlatformMetrics({ defaultMetrics: false });
    metrics.addEventMeters(ingestionMeters);
    metrics.observeEvents([
      { type: 'OperatorCsvImportCompleted', data: { accepted: 97, rejected: 3 }, metadata: metadata('t') },
    ]);
    expect(await value(metrics, 'import_rows_total', { outcome: 'accepted' })).to.equal(97);
    expect(await value(metrics, 'import_rows_total', { outcome: 'rejected' })).to.equal(3);
  });

  it("tenants' budget shares: folded tenants show the highest share among them", async () => {
    const metrics = createPlatformMetrics({ defaultMetrics: false, tenantLabels: 1 });
    metrics.observeBudgets(async () => [
      { tenantId: 'a', cap: 'cost', ratio: 0.2 },
      { tenantId: 'b', cap: 'cost', ratio: 0.95 },
      { tenantId: 'c', cap: 'cost', ratio: 0.5 },
    ]);
    const text = await metrics.exposition();
    expect(text).to.include('tenant_daily_budget_used_ratio{tenant="a",cap="cost"} 0.2');
    expect(text).to.include('tenant_daily_budget_used_ratio{tenant="other",cap="cost"} 0.95');
  });
});
