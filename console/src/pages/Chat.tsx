import { useEffect, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { api, request } from '../api';
import { Link, navigate } from '../router';
import { DataTable, ErrorText, humanize, Loading, Page, useLoad, When } from '../ui';
import { BarChart } from './Compliance';

interface Conversation {
  id: string;
  title: string;
  preview: string | null;
  message_count: number;
  last_message_at: string | null;
  created_at: string;
}
interface Message {
  id: string;
  sequence_number: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: string;
  tool_name: string | null;
  metadata: Record<string, unknown> | null;
  created_at: string;
}
interface Attachment {
  id: string;
  filename: string;
  size_bytes?: number;
}
interface ToolCall {
  id?: string;
  name?: string;
  toolName?: string;
  args?: unknown;
  input?: unknown;
  arguments?: unknown;
  ok?: boolean;
}
interface Frame {
  id: string;
  node: string;
  status?: string;
  content?: string;
  toolCalls: ToolCall[];
  /** Rich tool output carried by the frame (`tool_result` or `tool_results`), when the node sends it. */
  toolResults: Array<Record<string, unknown>>;
}
interface TurnEnd {
  status: string;
  error?: string | null;
  hitl_approval_id?: string | null;
  hitl_checkpoint_type?: string | null;
  tokens_used?: number | null;
}

type FrameData = {
  status?: string;
  message?: { content?: string; tool_calls?: ToolCall[] | null };
  tools?: ToolCall[];
  tool_result?: Record<string, unknown>;
  tool_results?: Array<Record<string, unknown>>;
};

function toFrame(id: string, node: string, data: FrameData | undefined): Frame {
  const results = [...(data?.tool_results ?? []), ...(data?.tool_result ? [data.tool_result] : [])].filter(
    (r) => r && typeof r === 'object',
  );
  return {
    id,
    node,
    status: data?.status,
    content: data?.message?.content || undefined,
    toolCalls: [...(data?.message?.tool_calls ?? []), ...(node === 'tool_node' ? (data?.tools ?? []) : [])],
    toolResults: results,
  };
}

const FOLD_CHARS = 1200;
const FOLD_LINES = 16;

/** Long text is folded to its first lines with a button to read the rest. */
export function Folded({ text, mono = false }: { text: string; mono?: boolean }) {
  const [open, setOpen] = useState(false);
  const long = text.length > FOLD_CHARS || text.split('\n').length > FOLD_LINES;
  const shown = !long || open ? text : `${text.slice(0, FOLD_CHARS).split('\n').slice(0, FOLD_LINES).join('\n')}…`;
  return (
    <>
      {mono ? <pre className="json">{shown}</pre> : <p>{shown}</p>}
      {long && (
        <button type="button" className="secondary small" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          {open ? 'Show less' : `Show all (${text.length.toLocaleString()} characters)`}
        </button>
      )}
    </>
  );
}

/** The turn's tool calls, collapsed: what was called, whether it worked, and any table or chart it returned. */
function ToolCalls({ frames }: { frames: Frame[] }) {
  const calls = frames
    .flatMap((f) => f.toolCalls.map((c, i) => ({ key: `${f.id}-${i}`, node: f.node, call: c })))
    .filter((c) => !INTERNAL_TOOLS.has(c.call.name ?? c.call.toolName ?? ''));
  const results = frames.flatMap((f) => f.toolResults.map((r, i) => ({ key: `${f.id}-r${i}`, result: r })));
  if (calls.length === 0 && results.length === 0) return null;
  const requested = calls.filter((c) => c.node !== 'tool_node');
  const ran = calls.filter((c) => c.node === 'tool_node');
  return (
    <details className="tool-call">
      <summary>
        Tool calls ({ran.length || requested.length}
        {ran.some((c) => c.call.ok === false) ? ', some failed' : ''})
      </summary>
      <ul className="plain-list">
        {(ran.length ? ran : requested).map(({ key, call }) => {
          const args = call.args ?? call.input ?? call.arguments;
          return (
            <li key={key}>
              <code>{call.name ?? call.toolName ?? 'tool'}</code>
              {call.ok === false ? (
                <span className="error"> failed</span>
              ) : call.ok ? (
                <span className="muted"> ok</span>
              ) : null}
              {args !== undefined && (
                <Folded text={typeof args === 'string' ? args : JSON.stringify(args, null, 2)} mono />
              )}
            </li>
          );
        })}
      </ul>
      {results.map(({ key, result }) => (
        <RichResult key={key} value={result} />
      ))}
    </details>
  );
}

const NODES = [
  'system_prompt_node',
  'memory_node',
  'resume_guard',
  'initial_llm_call',
  'tool_node',
  'approval_node',
  'output_format',
];

/** The agents a turn can run as (the server's agent definitions; an unknown type would degrade to the core tools). */
const AGENT_TYPES = [
  { value: 'general', label: 'General compliance assistant' },
  { value: 'filing_prep', label: 'Filing preparation' },
  { value: 'field_event', label: 'Field events' },
];

/** A conversation is titled from its first message (the list shows what it was about). */
export const titleFrom = (message: string) => {
  const line = message.trim().split('\n')[0].replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 57).trimEnd()}…` : line;
};

export function ChatPage({ id }: { id?: string }) {
  const list = useLoad(() => api.get<{ conversations: Conversation[]; total: number }>('/conversations?limit=50'), []);
  // A conversation started on this page keeps its panel (and the turn it is streaming) once it has an id.
  const startedHere = useRef<string | null>(null);
  // "New conversation" after one was started here opens a fresh, empty panel.
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (id || !startedHere.current) return;
    startedHere.current = null;
    setGeneration((g) => g + 1);
  }, [id]);
  // Conversations nobody wrote in are not listed (an older console created one per click).
  const listed = (list.data?.conversations ?? []).filter((c) => c.message_count > 0 || c.id === id);
  return (
    <Page title="Chat">
      <div className="chat">
        <aside className="conversations" aria-label="Conversations">
          <Link className="button-link" to="/chat">
            New conversation
          </Link>
          <ErrorText error={list.error} />
          {list.loading && !list.data && <Loading what="conversations" />}
          <ul>
            {listed.map((c) => (
              <li key={c.id}>
                <Link to={`/chat/${c.id}`}>
                  <span className="title">{c.title || 'Untitled conversation'}</span>
                  <span className="muted small">
                    {c.message_count} messages · <When at={c.last_message_at ?? c.created_at} />
                  </span>
                </Link>
              </li>
            ))}
          </ul>
          {list.data && listed.length === 0 && <p className="muted">No conversations yet.</p>}
        </aside>
        <Conversation
          key={id && id !== startedHere.current ? id : `new-${generation}`}
          id={id ?? null}
          onCreated={(created) => {
            startedHere.current = created;
            navigate(`/chat/${created}`, true);
          }}
          onChanged={list.reload}
        />
      </div>
    </Page>
  );
}

function Conversation({
  id: given,
  onCreated,
  onChanged,
}: {
  id: string | null;
  onCreated: (id: string) => void;
  onChanged: () => void;
}) {
  const [created, setCreated] = useState<string | null>(null);
  const id = given ?? created;
  const none = () => Promise.resolve({ messages: [] as Message[], attachments: [] as Attachment[] });
  const messages = useLoad(
    () => (id ? api.get<{ messages: Message[] }>(`/conversations/${encodeURIComponent(id)}/messages`) : none()),
    [id],
  );
  const attachments = useLoad(
    () =>
      id ? api.get<{ attachments: Attachment[] }>(`/conversations/${encodeURIComponent(id)}/attachments`) : none(),
    [id],
  );
  const [draft, setDraft] = useState('');
  const [agentType, setAgentType] = useState('general');
  const [selected, setSelected] = useState<string[]>([]);
  const [frames, setFrames] = useState<Frame[]>([]);
  const [end, setEnd] = useState<TurnEnd | null>(null);
  const [streaming, setStreaming] = useState(false);
  const [connection, setConnection] = useState<'open' | 'reconnecting' | null>(null);
  const [sendError, setSendError] = useState<unknown>();
  const [uploadError, setUploadError] = useState<unknown>();
  const [dragging, setDragging] = useState(false);
  const source = useRef<EventSource | null>(null);
  const seen = useRef(new Set<string>());
  const bottom = useRef<HTMLDivElement>(null);

  useEffect(() => () => source.current?.close(), []);
  // The answer is shown once: in the message list, provisionally while the turn streams, then as the stored message.
  const liveAnswer = [...frames].reverse().find((f) => f.content && f.toolCalls.length === 0)?.content ?? null;
  useEffect(() => {
    // Braces matter: Chromium's scrollIntoView returns a promise, which an effect must not return.
    void bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.data, frames.length]);

  const finish = () => {
    source.current?.close();
    source.current = null;
    setStreaming(false);
    setConnection(null);
    messages.reload();
    onChanged();
  };

  const send = async (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    if (!text || streaming) return;
    setSendError(undefined);
    let conversationId = id;
    if (!conversationId) {
      // Created with the first message, titled from it: no empty conversation is left behind.
      try {
        conversationId = (
          await api.post<{ id: string }>('/conversations', { agent_id: 'default', title: titleFrom(text) })
        ).id;
      } catch (err) {
        setSendError(err);
        return;
      }
      setCreated(conversationId);
      onCreated(conversationId);
    }
    setFrames([]);
    setEnd(null);
    seen.current = new Set();
    const params = new URLSearchParams({ message: text, agent_type: agentType });
    if (selected.length) params.set('attachment_ids', selected.join(','));
    const userMessagesBefore = (messages.data?.messages ?? []).filter((m) => m.role === 'user').length;
    setStreaming(true);
    listen(
      conversationId,
      `/api/v1/conversations/${encodeURIComponent(conversationId)}/stream?${params}`,
      userMessagesBefore,
    );
  };

  /**
   * Opens the stream and follows it. EventSource reconnects by itself after a dropped
   * connection and sends Last-Event-ID, so the server resumes after the last frame we saw;
   * frame ids also de-duplicate. One case it cannot handle: a drop before the first frame
   * arrived would reconnect to the URL that carries `message` without Last-Event-ID (a second
   * turn), so then we stop it and attach to the turn without `message` if it did start.
   */
  const listen = (conversationId: string, url: string, userMessagesBefore: number | null) => {
    const es = new EventSource(url, { withCredentials: true });
    source.current = es;
    setConnection('open');
    const fresh = (ev: MessageEvent) => {
      const key = ev.lastEventId || `${Math.random()}`;
      if (seen.current.has(key)) return false;
      seen.current.add(key);
      return true;
    };
    es.addEventListener('open', () => setConnection('open'));
    es.addEventListener('node_end', (ev) => {
      const m = ev as MessageEvent;
      if (!fresh(m)) return;
      const frame = JSON.parse(m.data) as { node: string; data: FrameData };
      setFrames((f) => [...f, toFrame(m.lastEventId, frame.node, frame.data)]);
    });
    es.addEventListener('done', (ev) => {
      const m = ev as MessageEvent;
      fresh(m);
      setEnd((JSON.parse(m.data) as { data: TurnEnd }).data);
      setDraft('');
      setSelected([]);
      finish();
    });
    es.addEventListener('error', (ev) => {
      const m = ev as MessageEvent;
      if (typeof m.data === 'string' && m.data) {
        // The server's named `error` frame: a failed or refused turn.
        fresh(m);
        const data = (JSON.parse(m.data) as { data: TurnEnd }).data;
        setEnd({ ...data, status: 'error' });
        setSendError(new Error(data.error ?? 'The turn failed.'));
        finish();
        return;
      }
      if (es.readyState === EventSource.CLOSED) {
        if (!seen.current.size)
          setSendError(
            new Error('The stream could not be opened (the conversation may be missing, or your session ended).'),
          );
        finish();
        return;
      }
      setConnection('reconnecting');
      if (seen.current.size === 0 && userMessagesBefore !== null) {
        es.close();
        void attachIfStarted(conversationId, userMessagesBefore);
      }
    });
  };

  const attachIfStarted = async (conversationId: string, userMessagesBefore: number) => {
    try {
      // The read model may trail the write by a moment: look a few times.
      for (let attempt = 0; attempt < 4; attempt++) {
        await new Promise((r) => setTimeout(r, 500));
        const now = await api.get<{ messages: Message[] }>(
          `/conversations/${encodeURIComponent(conversationId)}/messages`,
        );
        if (now.messages.filter((m) => m.role === 'user').length > userMessagesBefore) {
          listen(conversationId, `/api/v1/conversations/${encodeURIComponent(conversationId)}/stream`, null);
          return;
        }
      }
      setSendError(new Error('The connection dropped before the turn started; your message was not sent. Try again.'));
    } catch (err) {
      setSendError(err);
    }
    finish();
  };

  const upload = async (files: FileList | File[]) => {
    setUploadError(undefined);
    if (!id) return setUploadError(new Error('Send a first message, then attach files to the conversation.'));
    for (const file of Array.from(files)) {
      const form = new FormData();
      form.append('file', file, file.name);
      try {
        const a = await request<Attachment>('POST', `/conversations/${encodeURIComponent(id)}/attachments`, form);
        setSelected((s) => (s.length < 3 ? [...s, a.id] : s));
      } catch (err) {
        setUploadError(Object.assign(err as Error, { message: `${file.name}: ${(err as Error).message}` }));
      }
    }
    attachments.reload();
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (e.dataTransfer.files.length) void upload(e.dataTransfer.files);
  };

  return (
    <section
      className="conversation"
      aria-label="Conversation"
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <ErrorText error={messages.error} />
      <ol className="messages" aria-live="polite">
        {messages.data?.messages.map((m) => (
          <MessageView key={m.id} message={m} />
        ))}
        {streaming && liveAnswer && (
          <li className="message assistant provisional">
            <span className="sr-only">Agent (writing):</span>
            <Folded text={liveAnswer} />
          </li>
        )}
      </ol>
      {(streaming || frames.length > 0) && (
        <div className="turn card" aria-live="polite">
          <h2 className="small-heading">This turn</h2>
          <ol className="progress" aria-label="Pipeline progress">
            {NODES.map((n) => {
              const done = frames.filter((f) => f.node === n);
              return (
                <li key={n} className={done.length ? 'done' : ''}>
                  {n.replace(/_/g, ' ')}
                  {done.length > 1 ? ` ×${done.length}` : ''}
                  {done.length ? ` ✓ ${done[done.length - 1].status ?? ''}` : ''}
                </li>
              );
            })}
          </ol>
          {connection === 'reconnecting' && (
            <p className="notice" role="status">
              Connection dropped; resuming…
            </p>
          )}
          <ToolCalls frames={frames} />
          {end?.status === 'awaiting_hitl' && end.hitl_approval_id && (
            <p className="notice paused" role="status">
              Awaiting review ({end.hitl_checkpoint_type?.replace(/_/g, ' ')}).{' '}
              <Link to={`/approvals/${end.hitl_approval_id}`}>Open the approval</Link>
            </p>
          )}
          {end?.status === 'completed' && (
            <p className="muted small">Completed{end.tokens_used != null ? ` · ${end.tokens_used} tokens` : ''}.</p>
          )}
        </div>
      )}
      <div ref={bottom} />
      <form className="composer" onSubmit={send} aria-label="Send a message">
        <label>
          Message
          <textarea
            rows={3}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void send(e);
            }}
            aria-describedby="composer-help"
          />
        </label>
        <p id="composer-help" className="muted small">
          Ctrl+Enter sends. Drop files here to attach (PDF, CSV, XLSX, DOCX, TXT; up to 3 per turn).
        </p>
        <div className="row">
          <label>
            Agent
            <select value={agentType} onChange={(e) => setAgentType(e.target.value)}>
              {AGENT_TYPES.map((a) => (
                <option key={a.value} value={a.value}>
                  {a.label}
                </option>
              ))}
            </select>
          </label>
          <label className="file">
            Attach files
            <input type="file" multiple onChange={(e) => e.target.files && void upload(e.target.files)} />
          </label>
          <button type="submit" disabled={streaming || !draft.trim()}>
            {streaming ? 'Running…' : 'Send'}
          </button>
        </div>
        {dragging && <p className="notice">Drop to attach</p>}
        <ErrorText error={uploadError} />
        {attachments.data && attachments.data.attachments.length > 0 && (
          <fieldset>
            <legend>Attachments for this turn</legend>
            {attachments.data.attachments.map((a) => (
              <label key={a.id} className="inline">
                <input
                  type="checkbox"
                  checked={selected.includes(a.id)}
                  onChange={(e) => setSelected((s) => (e.target.checked ? [...s, a.id] : s.filter((x) => x !== a.id)))}
                />{' '}
                {a.filename}
              </label>
            ))}
          </fieldset>
        )}
        <ErrorText error={sendError} />
      </form>
    </section>
  );
}

/** Tools that are the agent's own bookkeeping, not results for the user (loading a skill's instructions). */
const INTERNAL_TOOLS = new Set(['load_skill']);

function MessageView({ message }: { message: Message }) {
  const rich = message.metadata?.tool_result as
    (Record<string, unknown> & { kind?: string; title?: string; rows?: unknown[] }) | undefined;
  if (message.role === 'tool' && INTERNAL_TOOLS.has(message.tool_name ?? '')) return null;
  if (message.role === 'tool') {
    return (
      <li className="message tool">
        <details open={!!rich}>
          <summary>Tool result: {message.tool_name}</summary>
          {rich ? <RichResult value={rich} /> : <Folded text={message.content} mono />}
        </details>
      </li>
    );
  }
  return (
    <li className={`message ${message.role}`}>
      <span className="sr-only">{message.role === 'user' ? 'You' : 'Agent'}:</span>
      <Folded text={message.content} />
      <span className="muted small">
        <When at={message.created_at} />
      </span>
    </li>
  );
}

/**
 * A tool's rich output: `{kind: 'table', columns, rows}` → a table; a chart specification
 * (`{kind: 'chart', x, y, data}` or `{kind: 'chart', points: [{label, value}]}`, or nested
 * under `chart`) → a bar chart; an `impact` result → its affected entities as a table.
 */
function RichResult({
  value,
}: {
  value: Record<string, unknown> & { kind?: string; title?: string; rows?: unknown[] };
}) {
  type ChartSpec = {
    x?: string;
    y?: string;
    data?: Array<Record<string, unknown>>;
    points?: Array<{ label: unknown; value: unknown }>;
    title?: string;
  };
  const chart = (value.chart ?? (value.kind === 'chart' ? value : undefined)) as ChartSpec | undefined;
  const points = chart?.points
    ? chart.points.map((p) => ({ label: String(p.label), value: Number(p.value) || 0 }))
    : chart?.data && chart.x && chart.y
      ? chart.data.map((d) => ({ label: String(d[chart.x!]), value: Number(d[chart.y!]) || 0 }))
      : null;
  const affected = Array.isArray(value.affected) ? (value.affected as unknown[]) : null;
  return (
    <>
      {Array.isArray(value.rows) && <DataTable value={value} caption={value.title} />}
      {points && (
        <BarChart
          title={chart?.title ?? value.title ?? 'Chart'}
          yLabel={humanize(chart?.y ?? 'value')}
          xLabel={chart?.x ? humanize(chart.x) : undefined}
          points={points}
        />
      )}
      {affected && <DataTable value={affected} caption="Affected entities" />}
      {!Array.isArray(value.rows) && !points && !affected && (
        <pre className="json">{JSON.stringify(value, null, 2)}</pre>
      )}
    </>
  );
}
