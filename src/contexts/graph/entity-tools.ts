import { z } from 'zod';
import type { AgentTool } from '../../platform/agent-tools';
import { headersFor } from '../../platform/agent-tools';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound } from '../../platform/domain-errors';
import { entityFacts } from '../../../queries/graph/entity-facts';
import { findEntities, FINDABLE_LABELS } from '../../../queries/graph/find-entities';
import { namespaceOf } from '../../../streams/graph/names';

/**
 * Finding the entity a person names, and its everyday facts, as agent tools. Every other tool
 * takes an entity id: a model calls `find_entities` first with whatever the person wrote (an
 * API number, a lease id, a name), then passes the id it found on. Each answer line of
 * `find_entities` reads `- <Type> <name> — entity_id <id>; …` so any model can read it.
 */
const Label = z.enum(FINDABLE_LABELS);
const FindArgs = z
  .object({
    reference: z
      .string()
      .min(1)
      .max(200)
      .describe('what the person wrote: an API number, a lease id, a P-5 number, an entity id or a name'),
    entity_type: Label.optional().describe('Well, Lease or Operator when the person said which'),
  })
  .strict();
const FactsArgs = z
  .object({
    entity_id: z.string().min(1).max(200).describe('the entity id find_entities returned'),
    entity_type: Label,
  })
  .strict();

const MATCHED: Record<string, string> = {
  id: 'its entity id',
  api_number: 'its API number',
  p5_number: 'its P-5 number',
  name: 'its name',
  words: 'words of its name',
  fuzzy: 'a name close to it',
};

export function entityTools(deps: Pick<PlatformDeps, 'knex'>): AgentTool[] {
  const findTool: AgentTool = {
    name: 'find_entities',
    description:
      'Finds the wells, leases or operators a person means: by API number (with or without dashes), lease id, P-5 number, entity id or name (case-insensitive, whole words, small typos). Returns each match with its entity id, which the other tools take. Several matches: ask the person which one.',
    parameters: FindArgs,
    async run(args, caller) {
      const a = args as z.infer<typeof FindArgs>;
      const matches = await findEntities(
        deps.knex,
        namespaceOf(caller.tenantId),
        a.reference,
        a.entity_type ? [a.entity_type] : FINDABLE_LABELS,
      );
      const what = a.entity_type ? a.entity_type.toLowerCase() : 'well, lease or operator';
      const lines =
        matches.length === 0
          ? [`No ${what} matches "${a.reference}".`]
          : [
              `${matches.length === 1 ? 'One match' : `${matches.length} matches`} for "${a.reference}":`,
              ...matches.map(
                (m) =>
                  `- ${m.label} ${m.name} — entity_id ${m.entity_id}; ${[m.api_number && m.api_number !== m.entity_id ? `API ${m.api_number}` : null, m.county && `${m.county} county`, m.operator && m.label !== 'Operator' ? `operator ${m.operator}` : null, `found by ${MATCHED[m.match]}`].filter(Boolean).join('; ')}`,
              ),
            ];
      const columns = ['label', 'name', 'entity_id', 'api_number', 'county', 'operator', 'match'];
      return {
        content: lines.join('\n'),
        result: {
          kind: 'table',
          title: `Matches for "${a.reference}"`,
          columns,
          headers: headersFor(columns),
          rows: matches.map((m) => ({ ...m, match: MATCHED[m.match] })),
          total_rows: matches.length,
          entities: matches.map((m) => ({ entity_id: m.entity_id, name: m.name, entity_type: m.label })),
        },
      };
    },
  };
  const facts: AgentTool = {
    name: 'entity_facts',
    description:
      'Everyday facts of one well, lease or operator by entity id: its operator, lease, field, county, status, API number, the latest filings on record (Form PR month, W-10/G-10/H-15 tests, P-5 renewal) and, for a lease or an operator, how many wells and leases it has.',
    parameters: FactsArgs,
    async run(args, caller) {
      const a = args as z.infer<typeof FactsArgs>;
      const found = await entityFacts(deps.knex, namespaceOf(caller.tenantId), a.entity_type, a.entity_id);
      if (!found) throw new NotFound(`no ${a.entity_type} ${a.entity_id} in the knowledge graph`);
      const e = found.entity;
      const rows: Array<{ fact: string; value: string }> = [];
      const add = (fact: string, value: string | null) => value && rows.push({ fact, value });
      add('API number', found.api_number);
      add('Operator', found.operator && `${found.operator.name} (${found.operator.entity_id})`);
      add('Lease', found.lease && `${found.lease.name} (${found.lease.entity_id})`);
      add('Field', found.field && `${found.field.name} (${found.field.entity_id})`);
      add(
        'County',
        found.county && `${found.county} county${found.district ? `, RRC district ${found.district}` : ''}`,
      );
      add(
        'Status',
        [found.status?.replace(/_/g, ' '), found.well_type && `${found.well_type} ${e.label.toLowerCase()}`]
          .filter(Boolean)
          .join(', ') || null,
      );
      add('Wells', found.wells === null ? null : String(found.wells));
      add('Leases', found.leases === null ? null : String(found.leases));
      add(
        'Last filing',
        found.filings[0] ? `${found.filings[0].form} ${found.filings[0].what} ${found.filings[0].date}` : null,
      );
      for (const f of found.filings.slice(1)) add(`Latest ${f.form}`, `${f.what} ${f.date}`);
      return {
        content: [`${e.label} ${e.name} (${e.entity_id}):`, ...rows.map((r) => `- ${r.fact}: ${r.value}`)].join('\n'),
        result: {
          kind: 'table',
          title: `${e.label} ${e.name}`,
          columns: ['fact', 'value'],
          headers: headersFor(['fact', 'value']),
          rows,
          total_rows: rows.length,
          entities: [{ entity_id: e.entity_id, name: e.name, entity_type: e.label }],
        },
      };
    },
  };
  return [findTool, facts];
}
