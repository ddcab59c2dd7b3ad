import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small OpenAI-compatible chat-completions server for the tests: it answers with the
 * streaming protocol (SSE `chat.completion.chunk`s, a usage chunk, `[DONE]`), so the AI SDK's
 * real openai-compatible client code runs end to end over HTTP. Each test scripts the replies.
 */
export type ScriptedReply =
  | {
      text: string;
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
      delayMs?: number;
      chunkDelayMs?: number;
    }
  | {
      toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
      delayMs?: number;
    }
  | { status: number; error: string };

export interface ChatServer {
  baseUrl: string;
  /** Bodies of the requests received, in order. */
  requests: any[];
  /** Replies to give, in order; when empty, `fallback` answers. */
  script: ScriptedReply[];
  fallback: (body: any) => ScriptedReply;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startChatServer(): Promise<ChatServer> {
  const state: Omit<ChatServer, 'baseUrl' | 'close'> = { requests: [], script: [], fallback: () => ({ text: 'ok' }) };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      state.requests.push(body);
      const reply = state.script.shift() ?? state.fallback(body);
      if ('status' in reply) {
        res
          .writeHead(reply.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: reply.error, type: 'server_error' } }));
        return;
      }
      if (reply.delayMs) await sleep(reply.delayMs);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const base = {
        id: 'chatcmpl-test',
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
      };
      const send = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
      if ('text' in reply) {
        const pieces = reply.text.match(/\S+\s*|\s+/g) ?? [''];
        send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
        for (const piece of pieces) {
          if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
          send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
        }
        send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      } else {
        reply.toolCalls.forEach((call, index) => {
          send({
            ...base,
            choices: [
              {
                index: 0,
                delta: {
                  role: 'assistant',
                  tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
                },
                finish_reason: null,
              },
            ],
          });
          send({
            ...base,
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ index, function: { arguments: JSON.stringify(call.arguments) } }] },
                finish_reason: null,
              },
            ],
          });
        });
        send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
      }
      if (reply.usage !== null) {
        const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 10 };
        send({
          ...base,
          choices: [],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        });
      }
      res.write('data: [DONE]\n\n');
      res.end();
    })().catch((error: Error) => res.destroy(error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
