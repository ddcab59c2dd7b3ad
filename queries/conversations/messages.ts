import type { Knex } from 'knex';
import { T } from '../../projections/conversations/tables';

export interface MessageView {
  id: string;
  conversation_id: string;
  sequence_number: number;
  role: string;
  content: string;
  user_id: string | null;
  tool_name: string | null;
  metadata: Record<string, unknown> | null;
  created_at: string;
}

export async function listMessages(
  knex: Knex,
  tenantId: string,
  conversationId: string,
): Promise<{ messages: MessageView[]; total: number }> {
  const rows = await knex(T.messages)
    .where({ tenant_id: tenantId, conversation_id: conversationId })
    .orderBy('sequence_number');
  const messages = rows.map((r) => ({
    id: r.id,
    conversation_id: r.conversation_id,
    sequence_number: r.sequence_number,
    role: r.role,
    content: r.content,
    user_id: r.user_id,
    tool_name: r.tool_name,
    metadata: r.metadata,
    created_at: new Date(r.created_at).toISOString(),
  }));
  return { messages, total: messages.length };
}
