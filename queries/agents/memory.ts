import type { Knex } from 'knex';
import { T } from '../../projections/conversations/tables';
import { conversationRow, type ConversationView, visibleView } from '../conversations/conversations';

export interface MemoryMessage {
  id: string;
  role: string;
  content: string;
  tool_name: string | null;
  metadata: Record<string, unknown> | null;
}

/**
 * The conversation a turn runs in, as its caller may see it (not found otherwise), with its
 * `limit` most recent messages, oldest first (the turn's memory): one statement.
 */
export async function turnConversation(
  knex: Knex,
  tenantId: string,
  conversationId: string,
  callerId: string | null,
  limit: number,
): Promise<{ conversation: ConversationView; recent: MemoryMessage[] }> {
  const recent = knex.raw(
    `coalesce((SELECT json_agg(json_build_object('id', m.id, 'role', m.role, 'content', m.content, 'tool_name', m.tool_name, 'metadata', m.metadata) ORDER BY m.sequence_number)
       FROM (SELECT id, role, content, tool_name, metadata, sequence_number FROM ${T.messages} WHERE tenant_id = ? AND conversation_id = ? ORDER BY sequence_number DESC LIMIT ?) m), '[]'::json) AS recent_messages`,
    [tenantId, conversationId, limit],
  );
  const row = await conversationRow(knex, tenantId, conversationId).first(`${T.conversations}.*`, recent);
  return { conversation: visibleView(row, callerId), recent: row.recent_messages as MemoryMessage[] };
}

/** Whether the project's instructions were already injected into this conversation. */
export async function projectInjected(
  knex: Knex,
  tenantId: string,
  conversationId: string,
  projectId: string,
): Promise<boolean> {
  const row = await knex(T.messages)
    .where({ tenant_id: tenantId, conversation_id: conversationId, role: 'system' })
    .whereRaw(`metadata->>'project_context' = ?`, [projectId])
    .first('id');
  return row !== undefined;
}
