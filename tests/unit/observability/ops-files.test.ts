import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createPlatformMetrics } from '../../../src/platform/observability/metrics';

const DIR = path.resolve(__dirname, '../../../ops/observability');
const ALERTS = path.join(DIR, 'alerts.yml');
const DASHBOARD = path.join(DIR, 'grafana-dashboard.json');

function promtool(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'le',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: identifiers outside label matchers, grouping
 * clauses, strings, ranges and function calls; a histogram's `_bucket`/`_count`/`_sum` series
 * count as the histogram.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\$\w+/g, '');
  const names = [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)]
    .filter((m) => !m[2] && !KEYWORDS.has(m[1].toLowerCase()))
    .map((m) => m[1].replace(/_(bucket|count|sum)$/, ''));
  return [...new Set(names)];
}

/** Every expression of the dashboard's panels (rows nest panels too). */
function dashboardExpressions(dashboard: { panels: Array<{ targets?: Array<{ expr: string }>; panels?: unknown[] }> }) {
  const panels = dashboard.panels.flatMap((p) => [p, ...((p.panels ?? []) as typeof dashboard.panels)]);
  return panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
}

/** The `expr:` values of the alert rules (single-line or folded `>-` blocks). */
function alertExpressions(yaml: string): string[] {
  const lines = yaml.split('\n');
  const exprs: string[] = [];
  lines.forEach((line, i) => {
    const match = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!match) return;
    if (match[2] !== '>-') return void exprs.push(match[2]);
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && lines[j].search(/\S/) > match[1].length; j++) block.push(lines[j].trim());
    exprs.push(block.join(' '));
  });
  return exprs;
}

describe('ops/observability: alert rules and the Grafana dashboard', () => {
  const exported = new Set(
    createPlatformMetrics()
      .registry.getMetricsAsArray()
      .map((m) => (m as unknown as { name: string }).name),
  );

  it('the metric-name reader finds names and skips labels, functions and keywords', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le, route) (rate(http_request_duration_seconds_bucket{status=~"5.."}[5m]))) / on (x) up',
      ),
    ).to.deep.equal(['http_request_duration_seconds', 'up']);
  });

  it('promtool accepts the rules', function () {
    const tool = promtool();
    if (!tool) return this.skip();
    const result = spawnSync(tool, ['check', 'rules', ALERTS], { encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).to.equal(0);
    expect(result.stdout).to.match(/SUCCESS: 8 rules found/);
  });

  it("the rules' unit tests pass: each alert fires on what it watches and not before its `for`", function () {
    const tool = promtool();
    if (!tool) return this.skip();
    const result = spawnSync(tool, ['test', 'rules', 'alerts.test.yml'], { cwd: DIR, encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).to.equal(0);
  });

  it('every alert reads only metrics the registry exports', () => {
    const exprs = alertExpressions(readFileSync(ALERTS, 'utf8'));
    expect(exprs).to.have.length(8);
    for (const expr of exprs)
      for (const name of metricNames(expr)) expect(exported, `${name} in ${expr}`).to.include(name);
  });

  it('the dashboard parses, has the sections operators look for, and reads only exported metrics', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
    const rows = dashboard.panels
      .filter((p: { type: string }) => p.type === 'row')
      .map((p: { title: string }) => p.title);
    expect(rows).to.deep.equal(['Traffic and latency', 'Lanes', 'Agent turns and spend', 'Assessments and imports']);
    const exprs = dashboardExpressions(dashboard);
    expect(exprs.length).to.be.greaterThan(20);
    const used = new Set(exprs.flatMap(metricNames));
    for (const name of used) expect(exported, name).to.include(name);
    for (const name of ['lane_dead_letters', 'model_cost_usd_total', 'compliance_cells_total', 'import_rows_total'])
      expect(used, name).to.include(name);
  });
});
