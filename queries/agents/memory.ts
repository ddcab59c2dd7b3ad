import type { Knex } from 'knex';
import { T } from '../../projections/conversations/tables';

export interface MemoryMessage {
  id: string;
  role: string;
  content: string;
  tool_name: string | null;
  metadata: Record<string, unknown> | null;
}

/** The conversation's most recent messages, oldest first (a turn's memory). */
export async function recentMessages(knex: Knex, tenantId: string, conversationId: string, limit: number): Promise<MemoryMessage[]> {
  const rows = await knex(T.messages).where({ tenant_id: tenantId, conversation_id: conversationId }).orderBy('sequence_number', 'desc').limit(limit).select('id', 'role', 'content', 'tool_name', 'metadata');
  return rows.reverse();
}

/** Whether the project's instructions were already injected into this conversation. */
export async function projectInjected(knex: Knex, tenantId: string, conversationId: string, projectId: string): Promise<boolean> {
  const row = await knex(T.messages)
    .where({ tenant_id: tenantId, conversation_id: conversationId, role: 'system' })
    .whereRaw(`metadata->>'project_context' = ?`, [projectId])
    .first('id');
  return row !== undefined;
}
