import { CHECKLISTS_TABLE } from '../../../projections/checklists/checklists-read-model';
import { assessmentAggregate } from '../../../streams/checklists/assessment';
import { checklistAggregate } from '../../../streams/checklists/checklist';
import { type AuditCatalog } from '../../platform/audit/catalog';

/** Filing checklists (`--checklist <id>`): the checklist and its assessment stream. */
export const checklistsAuditCatalog: AuditCatalog = {
  aggregates: [
    { kind: 'checklist', aggregate: checklistAggregate },
    { kind: 'checklist-assessment', aggregate: assessmentAggregate },
  ],
  finders: [
    {
      flag: 'checklist',
      value: '<id>',
      async find(lookup, tenantId, value) {
        const row: { title: string; form: string } | undefined = await lookup
          .knex(CHECKLISTS_TABLE)
          .select('title', 'form')
          .where({ tenant_id: tenantId, checklist_id: value })
          .first();
        if (!row) return [];
        const title = `checklist ${row.form} ${value}`;
        return [
          { kind: 'checklist', id: value, title },
          { kind: 'checklist-assessment', id: value, title: `assessment of ${title}` },
        ];
      },
    },
  ],
};
