import type { Projector } from '../../src/platform/projection-runner/projector';
import { namespaceAggregate } from '../../streams/prompts/namespace';
import { templateAggregate } from '../../streams/prompts/template';
import { AUDIT_TABLE } from './tables';

/**
 * The prompt audit log (GET /prompts/templates/{id}/audit-log and the namespace's): one row
 * per event of a namespace or template stream, in log order, with the stored actor id; the
 * e-mail is resolved when read. Bodies are left out (the version rows and the signed log
 * hold them); `stream` and `revision` point at the signed entry that `audit/verify` checks.
 */
const BULKY = new Set(['body', 'validation']);

export const promptAuditLogProjector: Projector = {
  name: 'prompts_audit_log',
  consistency: 'inline',
  version: 1,
  tables: [AUDIT_TABLE],
  eventTypes: [...namespaceAggregate.eventTypes, ...templateAggregate.eventTypes],
  async createTables(knex) {
    await knex.schema.createTable(AUDIT_TABLE, (t) => {
      t.bigIncrements('seq').primary();
      t.uuid('event_id').notNullable().unique();
      t.text('tenant_id').notNullable();
      t.text('stream').notNullable();
      t.bigInteger('revision').notNullable();
      t.uuid('namespace_id');
      t.uuid('template_id');
      t.uuid('version_id');
      t.text('action').notNullable();
      t.text('actor_id').notNullable();
      t.jsonb('details').notNullable();
      t.timestamp('at', { useTz: true }).notNullable();
      t.index(['tenant_id', 'template_id', 'seq']);
      t.index(['tenant_id', 'namespace_id', 'seq']);
    });
  },
  async apply(trx, event) {
    const data = event.data as Record<string, unknown>;
    const details: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) if (!BULKY.has(key)) details[key] = value;
    if (data.validation && typeof data.validation === 'object')
      details.valid = (data.validation as { valid: boolean }).valid;
    const templateId = typeof data.templateId === 'string' ? data.templateId : null;
    let namespaceId = typeof data.namespaceId === 'string' ? data.namespaceId : null;
    if (!namespaceId && templateId) {
      // Version events name only their template; its creation row in this table names the namespace.
      const created = await trx(AUDIT_TABLE)
        .select('namespace_id')
        .where({ tenant_id: event.metadata.tenantId, template_id: templateId, action: 'PromptTemplateCreated' })
        .first();
      namespaceId = created?.namespace_id ?? null;
    }
    await trx(AUDIT_TABLE)
      .insert({
        event_id: event.id,
        tenant_id: event.metadata.tenantId,
        stream: event.stream,
        revision: event.revision.toString(),
        namespace_id: namespaceId,
        template_id: templateId,
        version_id: typeof data.versionId === 'string' ? data.versionId : null,
        action: event.type,
        actor_id: event.metadata.actorId,
        details: JSON.stringify(details),
        at: event.recordedAt,
      })
      .onConflict('event_id')
      .ignore();
  },
};
