import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server that speaks the providers' documented wire formats, so the AI SDK's real
 * provider clients run end to end over HTTP:
 *  - Anthropic Messages (`POST /v1/messages`, SSE events message_start, content_block_start /
 *    _delta / _stop with thinking, signature, text and tool_use blocks, message_delta with the
 *    stop reason and usage, message_stop);
 *  - OpenAI Chat Completions (`POST /v1/chat/completions`, SSE `chat.completion.chunk`s with
 *    tool-call deltas, a usage chunk, `data: [DONE]`), which vLLM and Ollama also serve.
 * Each test scripts the replies and reads back the request bodies to assert what was sent.
 */
export type WireReply =
  | {
      thinking?: string;
      text?: string;
      toolCalls?: Array<{ id: string; name: string; input: Record<string, unknown> }>;
      usage?: { input: number; output: number };
      delayMs?: number;
    }
  | { status: number; type: string; message: string };

export interface WireServer {
  baseUrl: string;
  requests: Array<{ path: string; body: any }>;
  script: WireReply[];
  /** Requests whose client went away before the reply was sent (cancellation). */
  aborted: number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const signatureOf = (thinking: string) => `sig-${Buffer.from(thinking).toString('base64').slice(0, 24)}`;

function anthropicEvents(reply: Exclude<WireReply, { status: number }>, model: string): Array<[string, unknown]> {
  const events: Array<[string, unknown]> = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_test',
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: reply.usage?.input ?? 10, output_tokens: 1 },
        },
      },
    ],
  ];
  let index = 0;
  const block = (start: unknown, deltas: unknown[]) => {
    events.push(['content_block_start', { type: 'content_block_start', index, content_block: start }]);
    for (const delta of deltas) events.push(['content_block_delta', { type: 'content_block_delta', index, delta }]);
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
    index++;
  };
  if (reply.thinking)
    block({ type: 'thinking', thinking: '' }, [
      { type: 'thinking_delta', thinking: reply.thinking },
      { type: 'signature_delta', signature: signatureOf(reply.thinking) },
    ]);
  if (reply.text)
    block(
      { type: 'text', text: '' },
      (reply.text.match(/\S+\s*/g) ?? []).map((piece) => ({ type: 'text_delta', text: piece })),
    );
  for (const call of reply.toolCalls ?? [])
    block({ type: 'tool_use', id: call.id, name: call.name, input: {} }, [
      { type: 'input_json_delta', partial_json: JSON.stringify(call.input) },
    ]);
  events.push([
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: reply.usage?.output ?? 5 },
    },
  ]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events;
}

function openaiChunks(reply: Exclude<WireReply, { status: number }>, model: string): unknown[] {
  const base = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_764_000_000, model };
  const chunks: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ];
  for (const piece of reply.text?.match(/\S+\s*/g) ?? [])
    chunks.push({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
  (reply.toolCalls ?? []).forEach((call, index) => {
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
          },
          finish_reason: null,
        },
      ],
    });
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index, function: { arguments: JSON.stringify(call.input) } }] },
          finish_reason: null,
        },
      ],
    });
  });
  chunks.push({
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' }],
  });
  if (reply.usage)
    chunks.push({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: reply.usage.input,
        completion_tokens: reply.usage.output,
        total_tokens: reply.usage.input + reply.usage.output,
      },
    });
  return chunks;
}

/** The non-streamed replies: one Messages object, one `chat.completion`. */
function anthropicMessage(reply: Exclude<WireReply, { status: number }>, model: string) {
  const content: unknown[] = [];
  if (reply.thinking)
    content.push({ type: 'thinking', thinking: reply.thinking, signature: signatureOf(reply.thinking) });
  if (reply.text) content.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls ?? [])
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: reply.usage?.input ?? 10, output_tokens: reply.usage?.output ?? 5 },
  };
}

function openaiCompletion(reply: Exclude<WireReply, { status: number }>, model: string) {
  const toolCalls = (reply.toolCalls ?? []).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.input) },
  }));
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_764_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: reply.usage?.input ?? 10,
      completion_tokens: reply.usage?.output ?? 5,
      total_tokens: (reply.usage?.input ?? 10) + (reply.usage?.output ?? 5),
    },
  };
}

export async function startWireServer(): Promise<WireServer> {
  const state = { requests: [] as WireServer['requests'], script: [] as WireReply[], aborted: 0 };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const path = (req.url ?? '').split('?')[0];
      const anthropic = path.endsWith('/messages');
      if (req.method !== 'POST' || !(anthropic || path.endsWith('/chat/completions'))) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      state.requests.push({ path, body });
      const reply = state.script.shift() ?? { text: 'ok' };
      if ('status' in reply) {
        const error = anthropic
          ? { type: 'error', error: { type: reply.type, message: reply.message } }
          : { error: { message: reply.message, type: reply.type } };
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(error));
        return;
      }
      let gone = false;
      res.on('close', () => {
        if (!res.writableFinished) {
          gone = true;
          state.aborted++;
        }
      });
      if (reply.delayMs) await sleep(reply.delayMs);
      if (gone) return;
      if (body.stream !== true) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(anthropic ? anthropicMessage(reply, body.model) : openaiCompletion(reply, body.model)));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (anthropic) {
        for (const [event, data] of anthropicEvents(reply, body.model))
          res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      } else {
        for (const chunk of openaiChunks(reply, body.model)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.write('data: [DONE]\n\n');
      }
      res.end();
    })().catch((error: Error) => res.destroy(error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    get script() {
      return state.script;
    },
    set script(value) {
      state.script = value;
    },
    get aborted() {
      return state.aborted;
    },
    set aborted(value) {
      state.aborted = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  } as WireServer;
}
