import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';

/**
 * The peer `npm run bench -- http` measures POST /conversations against: the same command
 * written in Emmett's idiom (@event-driven-io/emmett 0.42, a devDependency) — an Express route,
 * Emmett's `CommandHandler` over its PostgreSQL event store, and an inline Pongo projection so
 * the next GET sees the document. No authentication, rate limit, signing or idempotency: those
 * are ours to carry.
 */
type ConversationDocument = { userId: string; agentId: string; title: string | null; status: string };
type ConversationCreated = {
  type: 'ConversationCreated';
  data: { conversationId: string; userId: string; agentId: string; title: string | null };
};
type Conversation = { status: 'none' } | { status: 'created'; ownerId: string };

const evolve = (_state: Conversation, event: ConversationCreated): Conversation => ({
  status: 'created',
  ownerId: event.data.userId,
});
const initialState = (): Conversation => ({ status: 'none' });

export async function startEmmettPeer(connectionString: string): Promise<{ url: string; close(): Promise<void> }> {
  const { CommandHandler, projections, IllegalStateError } = await import('@event-driven-io/emmett');
  const { getPostgreSQLEventStore, pongoSingleStreamProjection } = await import('@event-driven-io/emmett-postgresql');
  const { pongoClient } = await import('@event-driven-io/pongo');
  const conversationsProjection = pongoSingleStreamProjection<ConversationDocument, ConversationCreated>({
    collectionName: 'conversations',
    canHandle: ['ConversationCreated'],
    getDocumentId: (event) => event.data.conversationId,
    evolve: (
      _document: ConversationDocument | null,
      event: { data: ConversationCreated['data'] },
    ): ConversationDocument => ({
      userId: event.data.userId,
      agentId: event.data.agentId,
      title: event.data.title,
      status: 'created',
    }),
  });
  const store = getPostgreSQLEventStore(connectionString, {
    projections: projections.inline([conversationsProjection]),
    connectionOptions: { pooled: true, connectionString, maxConnections: 16 } as never,
  });
  await store.schema.migrate();
  const pongo = pongoClient(connectionString);
  const handle = CommandHandler<Conversation, ConversationCreated>({ evolve, initialState });

  const app = express();
  app.use(express.json());
  app.post('/conversations', async (req, res) => {
    const agentId = typeof req.body?.agent_id === 'string' ? req.body.agent_id.trim() : '';
    if (!agentId) {
      res.status(422).json({ detail: [{ loc: ['body', 'agent_id'], msg: 'required', type: 'value_error' }] });
      return;
    }
    const conversationId = randomUUID();
    const userId = String(req.headers['x-user-id'] ?? 'bench');
    await handle(store, `conversation-${conversationId}`, (state) => {
      if (state.status !== 'none') throw new IllegalStateError('conversation exists');
      return { type: 'ConversationCreated', data: { conversationId, userId, agentId, title: req.body.title ?? null } };
    });
    res.json({ id: conversationId, status: 'created' });
  });
  app.get('/conversations/:id', async (req, res) => {
    const document = await pongo.db().collection('conversations').findOne({ _id: req.params.id });
    if (!document) res.status(404).json({ detail: 'Conversation not found' });
    else res.json(document);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The first command creates the projection's collection; concurrent first commands would race on it.
  const first = await fetch(`${url}/conversations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_id: 'warm-up' }),
  });
  if (first.status !== 200) throw new Error(`the Emmett peer answered ${first.status}: ${await first.text()}`);
  return {
    url,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await pongo.close();
      await store.close();
    },
  };
}
