import type { Knex } from 'knex';
import { TEMPLATES_TABLE, VERSIONS_TABLE } from '../../projections/prompts/tables';
import { NotFound } from '../../src/platform/domain-errors';
import { versionView } from './views';

export async function findVersion(knex: Knex, tenantId: string, versionId: string) {
  const row = await knex(VERSIONS_TABLE).where({ tenant_id: tenantId, id: versionId }).first();
  return row ? versionView(row) : null;
}

export async function getVersion(knex: Knex, tenantId: string, versionId: string) {
  const version = await findVersion(knex, tenantId, versionId);
  if (!version) throw new NotFound('Prompt version not found');
  return version;
}

/** The template a version belongs to: how a /versions/{id} route finds its stream. */
export async function templateOfVersion(knex: Knex, tenantId: string, versionId: string): Promise<string> {
  const row = await knex(VERSIONS_TABLE).select('template_id').where({ tenant_id: tenantId, id: versionId }).first();
  if (!row) throw new NotFound('Prompt version not found');
  return row.template_id;
}

export async function listVersions(knex: Knex, tenantId: string, templateId: string) {
  const rows = await knex(VERSIONS_TABLE)
    .where({ tenant_id: tenantId, template_id: templateId })
    .orderBy('version_number', 'desc');
  return rows.map(versionView);
}

export async function findMyDraft(knex: Knex, tenantId: string, templateId: string, authorId: string) {
  const row = await knex(VERSIONS_TABLE)
    .where({ tenant_id: tenantId, template_id: templateId, author_id: authorId, status: 'draft' })
    .first();
  return row ? versionView(row) : null;
}

export async function preProductionOf(knex: Knex, tenantId: string, templateId: string) {
  const row = await knex(VERSIONS_TABLE)
    .where({ tenant_id: tenantId, template_id: templateId, status: 'pre_production' })
    .first();
  return row ? versionView(row) : null;
}

/** GET /prompts/pending-approvals: pre-production versions waiting for a second person, oldest first. */
export async function listPendingApprovals(knex: Knex, tenantId: string) {
  const rows = await knex(`${VERSIONS_TABLE} as v`)
    .select('v.*', 't.namespace_name', 't.slug', 't.name as template_name')
    .join(`${TEMPLATES_TABLE} as t`, 't.id', 'v.template_id')
    .where({ 'v.tenant_id': tenantId, 'v.status': 'pre_production' })
    .orderBy('v.pre_production_at', 'asc');
  return rows.map((r) => ({
    ...versionView(r),
    template_ref: `${r.namespace_name}:${r.slug}`,
    template_name: r.template_name,
  }));
}
