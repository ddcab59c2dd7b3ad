import type { Knex } from 'knex';
import { TEMPLATES_TABLE, TIERS_TABLE, VERSIONS_TABLE } from '../../projections/prompts/tables';
import { NotFound } from '../../src/platform/domain-errors';
import { templateView } from './views';

function withStages(knex: Knex) {
  return knex(`${TEMPLATES_TABLE} as t`)
    .select(
      't.*',
      'a.id as active_version_id',
      'a.version_number as active_version_number',
      'p.id as pre_production_version_id',
    )
    .leftJoin(`${VERSIONS_TABLE} as a`, (j) => j.on('a.template_id', 't.id').andOnVal('a.status', 'active'))
    .leftJoin(`${VERSIONS_TABLE} as p`, (j) => j.on('p.template_id', 't.id').andOnVal('p.status', 'pre_production'));
}

export async function listTemplates(knex: Knex, tenantId: string, filter: { namespace_id?: string }) {
  const query = withStages(knex).where('t.tenant_id', tenantId);
  if (filter.namespace_id) query.andWhere('t.namespace_id', filter.namespace_id);
  const rows = await query.orderBy([{ column: 't.namespace_name' }, { column: 't.slug' }]);
  return rows.map(templateView);
}

export async function findTemplate(knex: Knex, tenantId: string, templateId: string) {
  const row = await withStages(knex).where({ 't.tenant_id': tenantId, 't.id': templateId }).first();
  return row ? templateView(row) : null;
}

export async function getTemplate(knex: Knex, tenantId: string, templateId: string) {
  const template = await findTemplate(knex, tenantId, templateId);
  if (!template) throw new NotFound('Prompt template not found');
  return template;
}

/** `<namespace>:<slug>` to the template row with its budget tier's ceiling, or null. */
export async function findTemplateByRef(knex: Knex, tenantId: string, namespace: string, slug: string) {
  const row = await knex(`${TEMPLATES_TABLE} as t`)
    .select('t.id', 't.variables', 'r.max_tokens')
    .leftJoin(`${TIERS_TABLE} as r`, 'r.id', 't.budget_tier_id')
    .where({ 't.tenant_id': tenantId, 't.namespace_name': namespace, 't.slug': slug })
    .first();
  return row
    ? {
        id: row.id as string,
        variables: (row.variables as string[] | null) ?? null,
        maxTokens: row.max_tokens === null || row.max_tokens === undefined ? null : Number(row.max_tokens),
      }
    : null;
}

/** The declared variables and budget ceiling a template's versions are validated against. */
export async function validationContext(
  knex: Knex,
  tenantId: string,
  templateId: string,
): Promise<{ declaredVariables: string[] | null; maxTokens: number | null }> {
  const row = await knex(`${TEMPLATES_TABLE} as t`)
    .select('t.variables', 'r.max_tokens')
    .leftJoin(`${TIERS_TABLE} as r`, 'r.id', 't.budget_tier_id')
    .where({ 't.tenant_id': tenantId, 't.id': templateId })
    .first();
  if (!row) throw new NotFound('Prompt template not found');
  return {
    declaredVariables: row.variables ?? null,
    maxTokens: row.max_tokens === null || row.max_tokens === undefined ? null : Number(row.max_tokens),
  };
}
