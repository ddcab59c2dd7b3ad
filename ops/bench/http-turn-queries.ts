import { Client } from 'pg';
import { benchTenant } from './http-fixtures';
import { startBenchPlatform } from './support';

/**
 * Where one turn's queries go: `npx tsx ops/bench/http-turn-queries.ts` starts the platform on a
 * fresh bench database, runs a few warm-up turns, then counts every statement sent while
 * `TURNS` (default 10) turns run one after another, grouped by their text (up to the first
 * 100 characters), per turn, most frequent first. What runs in the background meanwhile (the
 * lanes' wake-ups) is counted too, as it costs the same round trips. `CONCURRENCY` (default 1)
 * runs that many conversations' turns at once, as the HTTP bench's 8 connections do: what
 * runs in the background per turn differs under load.
 */
/** The platform's frames of the current (synchronous) stack, outside the event store and pg. */
function callers(): string {
  const frames = (new Error().stack ?? '')
    .split('\n')
    .slice(2)
    .map((l) => l.trim());
  return frames
    .filter((f) => /(src|commands|queries|projections|streams)\//.test(f) && !/eventstore|node_modules/.test(f))
    .slice(0, 2)
    .map((f) => f.replace(/^at /, '').replace(/\(.*\/(src|commands|queries|projections|streams)\//, '($1/'))
    .join(' < ');
}

async function main(): Promise<void> {
  const counts = new Map<string, number>();
  /** Callers of the store's `readAll` (not statements: each of its calls is one of the reads counted above). */
  const readers = new Map<string, number>();
  let counting = false;
  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  (Client.prototype as unknown as { query: typeof query }).query = function (this: Client, ...args: unknown[]) {
    if (counting) {
      const first = args[0] as string | { text?: string };
      const full = (typeof first === 'string' ? first : (first?.text ?? '?')).replace(/\s+/g, ' ').trim();
      // Event reads share their select list: tell them apart by their condition and their caller.
      const where = full.startsWith('SELECT position, transaction_id')
        ? ` …${full.slice(full.indexOf(' WHERE '), full.indexOf(' WHERE ') + 60)} ← ${callers()}`
        : '';
      const params =
        (typeof first === 'object' ? (first as { values?: unknown[] }).values : undefined) ??
        (args[1] as unknown[] | undefined);
      // Each append named by its streams' kinds and the event types it wrote (several streams: one call of append_to_streams).
      const kind = (stream: unknown) => String(stream).split(/[-:]/)[0];
      const appended = !Array.isArray(params)
        ? ''
        : full.includes('append_to_streams')
          ? ` → ${(params[0] as string[]).map(kind).join(' + ')} ${(params[4] as string[]).join(',')}`
          : full.includes('append_to_stream')
            ? ` → ${kind(params[0])} ${Array.isArray(params[3]) ? (params[3] as string[]).join(',') : ''}`
            : '';
      const text = full.slice(0, 100) + where + appended;
      counts.set(text, (counts.get(text) ?? 0) + 1);
    }
    return query.apply(this, args);
  };
  const bench = await startBenchPlatform();
  // Who reads the global log: the store's readAll, counted by its caller.
  const store = bench.platform.deps.store;
  const readAll = store.readAll.bind(store);
  store.readAll = (options) => {
    if (counting) {
      const caller =
        (new Error().stack ?? '')
          .split('\n')[2]
          ?.trim()
          .replace(/^at /, '')
          .replace(/\(.*\/(src|commands|queries|projections)\//, '($1/') ?? '?';
      readers.set(caller, (readers.get(caller) ?? 0) + 1);
    }
    return readAll(options);
  };
  const { post, wellApi } = await benchTenant(bench);
  const concurrency = Number(process.env.CONCURRENCY ?? 1);
  const conversations: string[] = [];
  for (let c = 0; c < concurrency; c++)
    conversations.push((await post('/conversations', { agent_id: 'compliance' })).id);
  const turn = (conversation: string) =>
    post('/execute', { conversation_id: conversation, message: `What is the status of well ${wellApi}?` });
  const each = async (n: number) =>
    Promise.all(
      conversations.map(async (c) => {
        for (let i = 0; i < n; i++) await turn(c);
      }),
    );
  await each(3);
  const perConversation = Math.max(1, Math.round(Number(process.env.TURNS ?? 10) / concurrency));
  const turns = perConversation * concurrency;
  counting = true;
  const started = performance.now();
  await each(perConversation);
  const ms = (performance.now() - started) / turns;
  counting = false;
  // How far the settlement reactor is behind when the last turn answers: reservations of the
  // daily usage streams not settled yet count against the caps, and every fold carries them.
  const usage = await store.readAll({ limit: 100_000, filter: { eventTypes: ['UsageReserved', 'UsageSettled'] } });
  const open = new Set<string>();
  for (const e of usage) {
    const key = `${e.stream} ${(e.data as { executionId: string }).executionId}`;
    if (e.type === 'UsageReserved') open.add(key);
    else open.delete(key);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(
    `${(total / turns).toFixed(1)} queries per turn, ${ms.toFixed(0)} ms per turn (${concurrency === 1 ? 'sequential' : `${concurrency} at once`})\n`,
  );
  process.stdout.write(`${open.size} reservations unsettled when the last turn answered\n`);
  for (const [text, n] of [...counts].sort((a, b) => b[1] - a[1]))
    process.stdout.write(`${(n / turns).toFixed(1).padStart(6)}  ${text}\n`);
  process.stdout.write('global-log reads by caller, per turn:\n');
  for (const [caller, n] of [...readers].sort((a, b) => b[1] - a[1]))
    process.stdout.write(`${(n / turns).toFixed(1).padStart(6)}  ${caller}\n`);
  await bench.close();
  process.exit(0);
}

void main();
