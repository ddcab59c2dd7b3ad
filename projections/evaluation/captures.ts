import type { Projector } from '../../src/platform/projection-runner/projector';
import { CAPTURE_EVENT_TYPES, readCaptureEvent } from '../../streams/evaluation/capture';

/**
 * One row per capture (tenant, execution, user): the latest score, the enrichment fields
 * as the last gesture that gave each one left them, the snapshot and mirror statuses.
 */
export const CAPTURES_TABLE = 'evaluation_captures';

export const capturesProjector: Projector = {
  name: 'evaluation_captures',
  consistency: 'inline',
  version: 1,
  tables: [CAPTURES_TABLE],
  eventTypes: CAPTURE_EVENT_TYPES,
  async createTables(knex) {
    await knex.schema.createTable(CAPTURES_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('capture_id').notNullable();
      t.text('execution_id').notNullable();
      t.text('conversation_id');
      t.text('user_id').notNullable();
      t.integer('score').notNullable();
      t.text('expected_output');
      t.text('note');
      t.text('category_tag');
      t.text('snapshot_status').notNullable().defaultTo('missing');
      t.text('mirror_status').notNullable();
      t.text('mirror_error');
      t.integer('gestures').notNullable().defaultTo(1);
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'capture_id']);
      t.index(['tenant_id', 'user_id', 'conversation_id']);
      t.index(['snapshot_status']);
    });
  },
  async apply(trx, event) {
    const tenantId = event.metadata.tenantId;
    const parsed = readCaptureEvent(event);
    const at = event.recordedAt;
    switch (parsed.type) {
      case 'CaptureRecorded': {
        const d = parsed.data;
        const enrichment: Record<string, string> = {};
        if (d.expectedOutput !== null) enrichment.expected_output = d.expectedOutput;
        if (d.note !== null) enrichment.note = d.note;
        if (d.categoryTag !== null) enrichment.category_tag = d.categoryTag;
        const existing = await trx(CAPTURES_TABLE)
          .where({ tenant_id: tenantId, capture_id: d.captureId })
          .first('gestures');
        if (!existing) {
          await trx(CAPTURES_TABLE).insert({
            tenant_id: tenantId,
            capture_id: d.captureId,
            execution_id: d.executionId,
            conversation_id: d.conversationId,
            user_id: d.userId,
            score: d.score,
            ...enrichment,
            mirror_status: d.mirrorStatus,
            created_at: d.recordedAt,
            updated_at: d.recordedAt,
          });
        } else {
          await trx(CAPTURES_TABLE)
            .where({ tenant_id: tenantId, capture_id: d.captureId })
            .update({
              score: d.score,
              ...enrichment,
              ...(d.conversationId !== null ? { conversation_id: d.conversationId } : {}),
              mirror_status: d.mirrorStatus,
              mirror_error: null,
              gestures: existing.gestures + 1,
              updated_at: d.recordedAt,
            });
        }
        break;
      }
      case 'SnapshotLinked':
        await trx(CAPTURES_TABLE)
          .where({ tenant_id: tenantId, capture_id: captureIdOfStream(event.stream) })
          .update({
            snapshot_status: 'linked',
            ...(parsed.data.conversationId ? { conversation_id: parsed.data.conversationId } : {}),
            updated_at: at,
          });
        break;
      case 'SnapshotMissing':
        await trx(CAPTURES_TABLE)
          .where({ tenant_id: tenantId, capture_id: captureIdOfStream(event.stream) })
          .whereNot({ snapshot_status: 'linked' })
          .update({ snapshot_status: 'missing' });
        break;
      case 'ScoreMirrored':
        await trx(CAPTURES_TABLE)
          .where({ tenant_id: tenantId, capture_id: captureIdOfStream(event.stream) })
          .update({ mirror_status: 'mirrored', mirror_error: null });
        break;
      case 'ScoreMirrorFailed':
        await trx(CAPTURES_TABLE)
          .where({ tenant_id: tenantId, capture_id: captureIdOfStream(event.stream) })
          .update({ mirror_status: 'failed', mirror_error: parsed.data.error });
        break;
    }
  },
};

/** `evaluation.capture-<tenant>-<captureId>`: the capture id is a uuid, the last 36 characters. */
function captureIdOfStream(stream: string): string {
  return stream.slice(-36);
}
