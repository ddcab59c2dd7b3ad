import { formPrDue } from '../../../commands/compliance/packs/production';
import { seedGraph } from '../../../commands/graph/seed-graph';
import { listVertices } from '../../../queries/graph/entities';
import { namespaceOf } from '../../../streams/graph/names';
import { type Session, signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { type ChatServer, startChatServer } from './chat-completions-server';

/**
 * The platform the agents tests run turns on: a local chat-completions server behind the
 * `local/*` models, a signed-in operator and a seeded graph (projected before the first turn
 * reads it), with one of its wells' API numbers.
 */
export async function startSeededPlatform(
  seed: { wells: number; seed: number },
  env: Record<string, string> = {},
): Promise<{ t: TestPlatform; chat: ChatServer; alice: Session; wellApi: string }> {
  const chat = await startChatServer();
  const t = await startTestPlatform({ env: { LOCAL_LLM_BASE_URL: chat.baseUrl, ...env } });
  const alice = await signIn(t);
  // The oil-and-gas vertical (entity types) is projected before the seed checks its labels.
  await t.deps.projections.waitFor(await t.deps.store.headPosition(), 100_000);
  await seedGraph(
    t.deps,
    { tenantId: alice.tenantId, userId: alice.userId },
    { ...seed, as_of: '2026-01' },
    { formPrDue },
  );
  await t.deps.projections.waitFor(await t.deps.store.headPosition(), 100_000);
  const [{ entity_id: wellApi }] = await listVertices(t.deps.knex, namespaceOf(alice.tenantId), 'Well', 1);
  return { t, chat, alice, wellApi };
}
