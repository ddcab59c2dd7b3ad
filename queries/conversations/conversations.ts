import type { Knex } from 'knex';
import { NotFound } from '../../src/platform/domain-errors';
import { DEFAULT_TITLE, mayAccess } from '../../streams/conversations/conversation';
import { T } from '../../projections/conversations/tables';

/** Hidden from lists: replays re-run old turns, tests are harness traffic. */
const HIDDEN_TYPES = ['replay', 'test'];
const TITLE_FROM_MESSAGE_CHARS = 80;

export interface ConversationView {
  id: string;
  agent_id: string;
  user_id: string | null;
  status: string;
  title: string;
  preview: string | null;
  conversation_type: string | null;
  project_id: string | null;
  metadata: Record<string, unknown> | null;
  message_count: number;
  last_message_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** A title that was never set reads as the first user message, else the default. */
function titleOf(row: { title: string | null; first_user_message: string | null }): string {
  if (row.title) return row.title;
  const first = row.first_user_message?.replace(/\s+/g, ' ').trim();
  return first ? first.slice(0, TITLE_FROM_MESSAGE_CHARS) : DEFAULT_TITLE;
}

function view(row: Record<string, any>): ConversationView {
  return {
    id: row.id,
    agent_id: row.agent_id,
    user_id: row.user_id,
    status: row.status,
    title: titleOf(row as { title: string | null; first_user_message: string | null }),
    preview: row.preview,
    conversation_type: row.conversation_type,
    project_id: row.project_id,
    metadata: row.metadata,
    message_count: row.message_count,
    last_message_at: iso(row.last_message_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    deleted_at: iso(row.deleted_at),
  };
}

export async function listConversations(
  knex: Knex,
  filter: { tenantId: string; userId: string; projectId?: string; limit: number },
): Promise<{ conversations: ConversationView[]; total: number }> {
  const base = knex(T.conversations)
    .where({ tenant_id: filter.tenantId, user_id: filter.userId })
    .whereNull('deleted_at')
    .where((q) => void q.whereNull('conversation_type').orWhereNotIn('conversation_type', HIDDEN_TYPES));
  if (filter.projectId) base.where({ project_id: filter.projectId });
  const [rows, [{ count }]] = await Promise.all([
    base
      .clone()
      .select('*')
      .orderByRaw('coalesce(last_message_at, created_at) desc, created_at desc, id')
      .limit(filter.limit),
    base.clone().count<{ count: string }[]>('* as count'),
  ]);
  return { conversations: rows.map(view), total: Number(count) };
}

/**
 * The conversation as the caller may see it: soft-deleted rows, other tenants' rows and
 * other users' rows are all "not found".
 */
export async function visibleConversation(
  knex: Knex,
  tenantId: string,
  id: string,
  callerId: string | null,
): Promise<ConversationView> {
  return visibleView(await conversationRow(knex, tenantId, id).first(), callerId);
}

/** The query of a tenant's conversation that is not deleted; who may see it is `visibleView`'s. */
export function conversationRow(knex: Knex, tenantId: string, id: string): Knex.QueryBuilder {
  return knex(T.conversations).where({ tenant_id: tenantId, id }).whereNull('deleted_at');
}

/** A conversation's row (not deleted) as `callerId` may see it; not found when absent or not theirs. */
export function visibleView(row: Record<string, any> | undefined, callerId: string | null): ConversationView {
  if (!row || !mayAccess({ ownerId: row.user_id }, callerId)) throw new NotFound('Conversation not found');
  return view(row);
}
