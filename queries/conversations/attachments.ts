import type { Knex } from 'knex';
import { T } from '../../projections/conversations/tables';

/** The attachment object of the API (the extracted text is not part of it). */
export interface AttachmentView {
  id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  token_estimate: number;
  truncated: boolean;
  created_at: string;
}

const COLUMNS = ['id', 'filename', 'content_type', 'size_bytes', 'token_estimate', 'truncated', 'created_at'];

export const fileView = (r: Record<string, any>): AttachmentView => ({
  id: r.id,
  filename: r.filename,
  content_type: r.content_type,
  size_bytes: r.size_bytes,
  token_estimate: r.token_estimate,
  truncated: r.truncated,
  created_at: new Date(r.created_at).toISOString(),
});

export async function listAttachments(
  knex: Knex,
  tenantId: string,
  conversationId: string,
): Promise<{ attachments: AttachmentView[]; total: number }> {
  const rows = await knex(T.attachments)
    .where({ tenant_id: tenantId, conversation_id: conversationId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select(COLUMNS);
  return { attachments: rows.map(fileView), total: rows.length };
}

export async function getAttachment(
  knex: Knex,
  tenantId: string,
  conversationId: string,
  id: string,
): Promise<AttachmentView | undefined> {
  const row = await knex(T.attachments)
    .where({ tenant_id: tenantId, conversation_id: conversationId, id })
    .first(COLUMNS);
  return row ? fileView(row) : undefined;
}

/**
 * Extracted texts for a turn (agent execution splices them into the model context). Only
 * this conversation's attachments are returned; callers compare against the ids asked for.
 */
export async function attachmentTexts(
  knex: Knex,
  tenantId: string,
  conversationId: string,
  ids: string[],
): Promise<Array<AttachmentView & { text: string }>> {
  if (ids.length === 0) return [];
  const rows = await knex(T.attachments)
    .where({ tenant_id: tenantId, conversation_id: conversationId })
    .whereIn('id', ids);
  return rows.map((r) => ({ ...fileView(r), text: r.text }));
}
