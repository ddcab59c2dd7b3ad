import type { Knex } from 'knex';
import { USERS_TABLE } from '../../projections/identity/user-directory';
import { AUDIT_TABLE } from '../../projections/prompts/tables';

/**
 * Audit entries of a template or a namespace (a namespace's log includes its templates'),
 * newest first. `actor_resolved` is the actor's e-mail looked up now; the stored actor id
 * is never rewritten, so a renamed or removed user still reads as their id.
 */
export async function listPromptAudit(
  knex: Knex,
  tenantId: string,
  scope: { templateId?: string; namespaceId?: string },
  options: { limit: number; before?: string },
) {
  const query = knex(`${AUDIT_TABLE} as a`)
    .select('a.*', 'u.email as actor_email')
    .joinRaw('left join ?? as u on u.id::text = a.actor_id and u.tenant_id = a.tenant_id', [USERS_TABLE])
    .where('a.tenant_id', tenantId);
  if (scope.templateId) query.andWhere('a.template_id', scope.templateId);
  if (scope.namespaceId) query.andWhere('a.namespace_id', scope.namespaceId);
  if (options.before)
    query.andWhere(
      'a.seq',
      '<',
      knex(AUDIT_TABLE).select('seq').where({ event_id: options.before, tenant_id: tenantId }),
    );
  const rows = await query.orderBy('a.seq', 'desc').limit(options.limit);
  return rows.map((r) => ({
    id: r.event_id as string,
    action: r.action as string,
    actor_id: r.actor_id as string,
    actor_resolved: (r.actor_email as string | null) ?? null,
    namespace_id: r.namespace_id ?? null,
    template_id: r.template_id ?? null,
    version_id: r.version_id ?? null,
    details: r.details,
    stream_revision: Number(r.revision),
    at: (r.at instanceof Date ? r.at : new Date(r.at)).toISOString(),
  }));
}

export async function hasAuditEntries(
  knex: Knex,
  tenantId: string,
  scope: { templateId?: string; namespaceId?: string },
): Promise<boolean> {
  const query = knex(AUDIT_TABLE).where('tenant_id', tenantId);
  if (scope.templateId) query.andWhere('template_id', scope.templateId);
  if (scope.namespaceId) query.andWhere('namespace_id', scope.namespaceId);
  return Boolean(await query.first('seq'));
}

/** The signed streams behind a scope: the template's, or every stream the tenant's prompt log touched. */
export async function auditedStreams(knex: Knex, tenantId: string, templateId?: string): Promise<string[]> {
  const query = knex(AUDIT_TABLE).distinct('stream').where('tenant_id', tenantId);
  if (templateId) query.andWhere('template_id', templateId);
  return (await query.orderBy('stream')).map((r) => r.stream as string);
}
