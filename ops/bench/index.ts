import { existsSync } from 'node:fs';
import path from 'node:path';
import type { BenchRow } from './support';

/**
 * `npm run bench [-- name…]`: runs each benchmark module and prints one table. Modules
 * export `run(): Promise<BenchRow[]>`; speed targets live here, never in timed tests.
 */
const MODULES = [
  'spine',
  'append-peer',
  'http',
  'aggregates',
  'identity',
  'settings',
  'graph',
  'extraction',
  'prompts',
  'connectors',
  'monitoring',
  'approvals',
  'agents',
  'compliance',
  'upload-lanes',
  'memory',
  'audit',
  'ingestion',
  'evaluation',
  'budgets',
  'assistant',
];

export async function runBenchmarks(wanted: string[]): Promise<void> {
  const unknown = wanted.filter((w) => !MODULES.includes(w));
  if (unknown.length) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${MODULES.join(', ')}`);
  const selected = wanted.length ? MODULES.filter((m) => wanted.includes(m)) : MODULES;
  const table: Array<BenchRow & { module: string }> = [];
  for (const name of selected) {
    if (!existsSync(path.join(__dirname, `${name}.ts`))) continue;
    process.stdout.write(`running ${name}…\n`);
    const module = (await import(`./${name}`)) as { run(): Promise<BenchRow[]> };
    for (const row of await module.run()) table.push({ module: name, ...row });
  }
  const width = Math.max(...table.map((r) => r.name.length), 10);
  console.log(`\n${'benchmark'.padEnd(10)} ${'measure'.padEnd(width)} ${'value'.padStart(12)}  unit        target`);
  for (const row of table) {
    const value = Number.isInteger(row.value) ? row.value.toLocaleString('en-US') : row.value.toFixed(2);
    console.log(
      `${row.module.padEnd(10)} ${row.name.padEnd(width)} ${value.padStart(12)}  ${row.unit.padEnd(10)}  ${row.target ?? ''}`,
    );
  }
}

if (require.main === module) {
  runBenchmarks(process.argv.slice(2).filter((a) => !a.startsWith('-'))).catch((error) => {
    console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  });
}
