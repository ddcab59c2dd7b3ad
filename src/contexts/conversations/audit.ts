import { T } from '../../../projections/conversations/tables';
import { conversationAggregate } from '../../../streams/conversations/conversation';
import { projectAggregate } from '../../../streams/conversations/project';
import { type AuditCatalog } from '../../platform/audit/catalog';

/**
 * Conversations and projects, by id. A deleted conversation may have left the read model;
 * its stream has not, so the id is taken as given and an empty history reads "nothing found".
 */
export const conversationsAuditCatalog: AuditCatalog = {
  aggregates: [
    { kind: 'conversation', aggregate: conversationAggregate, hiddenFields: ['recentMessages'] },
    { kind: 'project', aggregate: projectAggregate },
  ],
  finders: [
    {
      flag: 'conversation',
      value: '<id>',
      async find(lookup, tenantId, value) {
        const row = await lookup
          .knex(T.conversations)
          .select('title')
          .where({ tenant_id: tenantId, id: value })
          .first();
        return [
          { kind: 'conversation', id: value, title: `conversation ${row?.title ? `"${row.title}" ` : ''}${value}` },
        ];
      },
    },
    {
      flag: 'project',
      value: '<id>',
      async find(_lookup, _tenantId, value) {
        return [{ kind: 'project', id: value, title: `project ${value}` }];
      },
    },
  ],
};
