import { finishTurn } from '../../commands/agents/finish-turn';
import { appendMessage } from '../../commands/conversations/append-message';
import { startTurn } from '../../commands/agents/start-turn';
import { readTurnEvent, turnAggregate } from '../../streams/agents/turn';
import { type BenchRow, startBenchPlatform } from './support';

/**
 * Agent turns on one instance with the builtin model:
 *  - turn overhead: POST /execute latency minus the model's own time (from the turn's
 *    `initial_llm_call` events), i.e. what the pipeline, the event appends and the
 *    conversation writes cost per turn;
 *  - append → SSE frame latency with 50 streams open (a progress event appended to one of
 *    50 followed turns until its frame is read by that stream's HTTP client);
 *  - 50 turns streamed concurrently over SSE, counting failures.
 */
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e6;

interface SseClient {
  frames: Array<{ event: string; id: string; data: any; at: number }>;
  done: Promise<void>;
  abort(): void;
}

/** A plain SSE reader over fetch: splits frames, records when each was read. */
function openStream(
  url: string,
  headers: Record<string, string>,
  onFrame?: (frame: { event: string; id: string; data: any }) => void,
): SseClient {
  const controller = new AbortController();
  const frames: SseClient['frames'] = [];
  const done = (async () => {
    const response = await fetch(url, { headers, signal: controller.signal });
    if (response.status !== 200 || !response.body) throw new Error(`stream answered ${response.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const raw = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (raw.startsWith(':')) continue;
        const fields = Object.fromEntries(
          raw.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
        );
        const frame = { event: fields.event, id: fields.id, data: JSON.parse(fields.data), at: performance.now() };
        frames.push(frame);
        onFrame?.(frame);
      }
    }
  })();
  return { frames, done, abort: () => controller.abort() };
}

export async function run(): Promise<BenchRow[]> {
  const bench = await startBenchPlatform();
  const rows: BenchRow[] = [];
  try {
    const user = await bench.session();
    const { deps } = bench.platform;
    const conversation = async () => {
      const response = await fetch(`${bench.api}/conversations`, {
        method: 'POST',
        headers: user.headers,
        body: JSON.stringify({ agent_id: 'bench' }),
      });
      return ((await response.json()) as { id: string }).id;
    };

    // 1. Turn overhead with the builtin model.
    const latencies: number[] = [];
    const overheads: number[] = [];
    const turns = 40;
    const conversationId = await conversation();
    for (let i = 0; i < turns + 5; i++) {
      const started = process.hrtime.bigint();
      const response = await fetch(`${bench.api}/execute`, {
        method: 'POST',
        headers: user.headers,
        body: JSON.stringify({
          conversation_id: i % 2 ? await conversation() : conversationId,
          message: `Question ${i}: what is due this month?`,
        }),
      });
      const result = (await response.json()) as { execution_id: string; status: string };
      const elapsed = ms(started);
      if (result.status !== 'completed')
        throw new Error(`bench turn ${i} ended ${response.status} ${JSON.stringify(result)}`);
      if (i < 5) continue; // warm-up
      const events = (await deps.store.readStream(turnAggregate.stream(user.tenantId, result.execution_id))).map(
        readTurnEvent,
      );
      const modelMs = events.reduce(
        (sum, e) =>
          sum +
          (e.type === 'NodeCompleted' && e.data.node === 'initial_llm_call'
            ? Number(e.data.detail?.duration_ms ?? 0)
            : 0),
        0,
      );
      latencies.push(elapsed);
      overheads.push(elapsed - modelMs);
    }
    latencies.sort((a, b) => a - b);
    overheads.sort((a, b) => a - b);
    rows.push({ name: 'execute latency p50 (builtin model)', value: percentile(latencies, 50), unit: 'ms' });
    rows.push({
      name: 'turn overhead p50 (latency - model time)',
      value: percentile(overheads, 50),
      unit: 'ms',
      target: '<= 150',
    });
    rows.push({ name: 'turn overhead p95', value: percentile(overheads, 95), unit: 'ms', target: '<= 300' });

    // 2. Append → SSE frame latency with 50 streams open.
    const open = 50;
    const context = { tenantId: user.tenantId, actorId: user.userId };
    const sent = new Map<string, bigint>();
    const frameLatencies: number[] = [];
    const arrivals = new Map<string, () => void>();
    const clients: SseClient[] = [];
    const executionIds: string[] = [];
    for (let i = 0; i < open; i++) {
      const id = await conversation();
      const executionId = `bench-${i}-${Date.now()}`;
      executionIds.push(executionId);
      // As a turn's preparation does: the user message carries the execution id the stream attaches by.
      await appendMessage(
        deps,
        { tenantId: user.tenantId, conversationId: id, callerId: user.userId },
        { role: 'user', content: `open stream ${i}`, metadata: { execution_id: executionId } },
      );
      await startTurn(deps, context, {
        executionId,
        conversationId: id,
        userId: user.userId,
        agentId: 'bench',
        agentType: 'general',
        model: 'builtin/deterministic',
        fallbackModel: null,
        thinkingMode: 'adaptive',
        maxTokens: null,
        maxCostUsd: null,
        userMessageId: `m-${i}`,
        attachmentIds: [],
      });
      clients.push(
        openStream(`${bench.api}/conversations/${id}/stream`, user.headers, (frame) => {
          const key = frame.data?.data?.probe as string | undefined;
          if (!key || !sent.has(key)) return;
          frameLatencies.push(ms(sent.get(key)!));
          arrivals.get(key)?.();
        }),
      );
    }
    while (deps.streamTail.followers < open) await new Promise((r) => setTimeout(r, 10));
    const probes = 500;
    for (let i = 0; i < probes; i++) {
      const key = `p${i}`;
      const arrived = new Promise<void>((resolve) => arrivals.set(key, resolve));
      sent.set(key, process.hrtime.bigint());
      // The raw append (no command round trip): what is measured is commit → fan-out → SSE → client.
      await deps.store.append(turnAggregate.stream(user.tenantId, executionIds[i % open]), [
        {
          type: 'NodeCompleted',
          data: {
            node: 'tool_node',
            status: 'ok',
            tokensUsed: null,
            message: null,
            skillsLoaded: null,
            detail: { probe: key },
          },
          metadata: { ...context, correlationId: key, causationId: key },
        },
      ]);
      await arrived;
    }
    frameLatencies.sort((a, b) => a - b);
    rows.push({
      name: `append → SSE frame p50, ${open} streams open`,
      value: percentile(frameLatencies, 50),
      unit: 'ms',
    });
    rows.push({
      name: `append → SSE frame p99, ${open} streams open`,
      value: percentile(frameLatencies, 99),
      unit: 'ms',
      target: '<= 20',
    });
    const outcome = {
      status: 'error' as const,
      tokensUsed: null,
      costUsd: null,
      skillsInjected: [],
      thinkingMode: 'adaptive',
      referencedEntities: [],
      hitlApprovalId: null,
      hitlCheckpointType: null,
      error: 'bench over',
    };
    await Promise.all(
      executionIds.map((executionId) =>
        finishTurn(deps, context, executionId, {
          outcome,
          usage: {
            userId: user.userId,
            model: 'builtin/deterministic',
            inputTokens: null,
            outputTokens: null,
            tokensUsed: null,
            costUsd: null,
          },
        }),
      ),
    );
    const ended = await Promise.allSettled(clients.map((c) => c.done));
    rows.push({
      name: 'streams that ended cleanly on the terminal frame',
      value: ended.filter((r) => r.status === 'fulfilled').length,
      unit: `of ${open}`,
      target: `${open}`,
    });

    // 3. 50 turns streamed concurrently.
    const concurrent = 50;
    const ids = await Promise.all(Array.from({ length: concurrent }, () => conversation()));
    const started = process.hrtime.bigint();
    const streams = ids.map((id, i) =>
      openStream(
        `${bench.api}/conversations/${id}/stream?${new URLSearchParams({ message: `Stream ${i}: how much flaring is allowed?` })}`,
        user.headers,
      ),
    );
    const results = await Promise.allSettled(streams.map((s) => s.done));
    const wall = ms(started);
    const good = streams.filter(
      (s, i) =>
        results[i].status === 'fulfilled' &&
        s.frames.at(-1)?.event === 'done' &&
        s.frames.at(-1)?.data.data.status === 'completed' &&
        s.frames.length === 9,
    ).length;
    rows.push({
      name: `concurrent streamed turns completed without error`,
      value: good,
      unit: `of ${concurrent}`,
      target: `${concurrent}`,
    });
    rows.push({ name: `wall time for ${concurrent} concurrent streamed turns`, value: wall, unit: 'ms' });
    rows.push({
      name: 'stream followers left open afterwards',
      value: deps.streamTail.followers,
      unit: 'followers',
      target: '0',
    });
  } finally {
    await bench.close();
  }
  return rows;
}
