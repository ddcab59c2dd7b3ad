import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Artifact bytes, content-addressed per tenant: the key is the SHA-256 of the bytes, so the
 * same file uploaded twice is stored once and an event names its content by hash. Like the
 * secret store this is content, not a read model: the command writes it before appending
 * the event that names it, and no event holds the bytes. Rows are never updated; a blob no
 * artifact names any more is left for an offline sweep (deleting on ArtifactRemoved would
 * race with a concurrent upload of the same bytes).
 */
export const ARTIFACT_BLOBS_TABLE = 'checklists_artifact_blobs';

export async function createArtifactBlobsTable(knex: Knex): Promise<void> {
  await knex.schema.createTable(ARTIFACT_BLOBS_TABLE, (t) => {
    t.text('tenant_id').notNullable();
    t.text('sha256').notNullable();
    t.binary('content').notNullable();
    t.text('content_type').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.timestamp('stored_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'sha256']);
  });
}

export const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export async function putBlob(knex: Knex, tenantId: string, bytes: Buffer, contentType: string): Promise<string> {
  const sha256 = sha256Of(bytes);
  await knex(ARTIFACT_BLOBS_TABLE)
    .insert({ tenant_id: tenantId, sha256, content: bytes, content_type: contentType, size_bytes: bytes.length })
    .onConflict(['tenant_id', 'sha256'])
    .ignore();
  return sha256;
}

export async function getBlob(
  knex: Knex,
  tenantId: string,
  sha256: string,
): Promise<{ content: Buffer; contentType: string } | null> {
  const row = await knex(ARTIFACT_BLOBS_TABLE).where({ tenant_id: tenantId, sha256 }).first('content', 'content_type');
  return row ? { content: row.content as Buffer, contentType: row.content_type as string } : null;
}
