import { NAMESPACES_TABLE, TEMPLATES_TABLE } from '../../../projections/prompts/tables';
import { namespaceAggregate } from '../../../streams/prompts/namespace';
import { templateAggregate } from '../../../streams/prompts/template';
import { type AuditCatalog } from '../../platform/audit/catalog';

/** Prompts: `--prompt <namespace>:<slug>` (the template with its versions), or a whole namespace `--prompt <namespace>`. */
export const promptsAuditCatalog: AuditCatalog = {
  aggregates: [
    { kind: 'prompt-namespace', aggregate: namespaceAggregate },
    { kind: 'prompt-template', aggregate: templateAggregate },
  ],
  finders: [
    {
      flag: 'prompt',
      value: '<namespace>:<slug>',
      async find(lookup, tenantId, value) {
        const [ns, slug] = value.split(':');
        if (!ns) return [];
        if (slug === undefined) {
          const rows: Array<{ id: string }> = await lookup
            .knex(NAMESPACES_TABLE)
            .select('id')
            .where({ tenant_id: tenantId, name: ns });
          return rows.map((r) => ({ kind: 'prompt-namespace', id: r.id, title: `prompt namespace ${ns}` }));
        }
        const rows: Array<{ id: string }> = await lookup
          .knex(TEMPLATES_TABLE)
          .select('id')
          .where({ tenant_id: tenantId, namespace_name: ns, slug });
        return rows.map((r) => ({ kind: 'prompt-template', id: r.id, title: `prompt ${ns}:${slug}` }));
      },
    },
  ],
};
