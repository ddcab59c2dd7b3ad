import { z } from 'zod';
import type { AgentTool, ToolProvider } from '../../platform/agent-tools';
import { headersFor } from '../../platform/agent-tools';
import type { PlatformDeps } from '../../platform/context-module';
import { resolveVertex } from '../../../commands/graph/resolve-vertex';
import { type VertexView } from '../../../queries/graph/entities';
import { cachedSchemaSettings } from '../../../queries/graph/graph-schema';
import { impactOf } from '../../../queries/graph/impact';
import { managedContext } from '../../../queries/graph/managed-context';
import { runTemplate, TEMPLATES } from '../../../queries/graph/query-templates';
import { namespaceOf } from '../../../streams/graph/names';
import { entityTools } from './entity-tools';
import { wellTools } from './well-tools';

/**
 * The knowledge graph's tools for agent turns: context assembly around one entity, the
 * whitelisted query templates and impact analysis. Each reads the caller's own tenant
 * namespace only, over the same queries as the HTTP routes. Rich output (tables) travels in
 * `result`; `result.entities` lists the entities the answer is about.
 */
const nameOf = (v: Pick<VertexView, 'entity_id' | 'properties'>) =>
  String(v.properties.name ?? v.properties.well_name ?? v.properties.api_number ?? v.entity_id);
const entityOf = (v: Pick<VertexView, 'entity_id' | 'label' | 'properties'>) => ({
  entity_id: v.entity_id,
  name: nameOf(v),
  entity_type: v.label,
});

export function graphAgentTools(deps: Pick<PlatformDeps, 'knex' | 'clock'>): ToolProvider {
  const { knex } = deps;
  const settings = cachedSchemaSettings(knex);

  const graphContextTool: AgentTool = {
    name: 'graph_context',
    description:
      'Facts about one entity of the knowledge graph (a well by API number, a lease, an operator by P5 number…) and its related entities, as text for answering questions.',
    parameters: z
      .object({
        entity_type_key: z.string().min(1).max(64).describe('entity type key or label, e.g. well, lease, operator'),
        id: z.string().min(1).max(200).describe('the business id (API number, lease id, P-5 id) or graph uuid'),
        domain_tags: z.array(z.string()).max(10).optional(),
        depth: z.number().int().min(1).max(3).optional(),
      })
      .strict(),
    async run(args, caller) {
      const a = args as { entity_type_key: string; id: string; domain_tags?: string[]; depth?: number };
      const context = await managedContext(knex, await settings(), namespaceOf(caller.tenantId), a.id, {
        entity_type_key: a.entity_type_key,
        domain_tags: a.domain_tags ?? [],
        depth: a.depth ?? 1,
        max_per_relationship: 25,
        max_tokens: 3000,
      });
      const root = context.structured.entity as VertexView;
      return {
        content: context.context_text,
        result: {
          kind: 'graph_context',
          entity_type: context.entity_type.key,
          token_estimate: context.token_estimate,
          entities: [entityOf(root)],
        },
      };
    },
  };

  const templateTool: AgentTool = {
    name: 'graph_query_template',
    description: `Runs a whitelisted graph query. Templates: ${Object.entries(TEMPLATES)
      .map(([id, t]) => `${id}(${Object.keys(t.params).join(', ')})`)
      .join('; ')}.`,
    parameters: z
      .object({
        template_id: z.enum(Object.keys(TEMPLATES) as [string, ...string[]]),
        params: z.record(z.union([z.string(), z.number()])),
      })
      .strict(),
    async run(args, caller) {
      const a = args as { template_id: string; params: Record<string, string | number> };
      const { results, count } = await runTemplate(knex, namespaceOf(caller.tenantId), a.template_id, a.params);
      const vertices = results.flatMap((row) =>
        Object.values(row).filter((v): v is VertexView => typeof v === 'object' && v !== null && 'entity_id' in v),
      );
      // Every template but the edge statistics returns one vertex per row.
      const vertexRows = TEMPLATES[a.template_id].columns.length === 1;
      if (vertexRows && vertices.length === results.length) {
        const rows = vertices.map((v) => ({
          entity_id: v.entity_id,
          label: v.label,
          name: nameOf(v),
          status: v.properties.status ?? null,
        }));
        const lines = rows
          .slice(0, 50)
          .map(
            (r) =>
              `- ${r.label} ${r.name} (${r.entity_id})${r.status ? `, ${String(r.status).replace(/_/g, ' ')}` : ''}`,
          );
        return {
          content: `${count} result(s) of ${a.template_id}:\n${lines.join('\n')}${count > 50 ? `\n… ${count - 50} more` : ''}`,
          result: {
            kind: 'table',
            columns: ['entity_id', 'label', 'name', 'status'],
            headers: headersFor(['entity_id', 'label', 'name', 'status']),
            rows,
            total_rows: count,
            entities: vertices.slice(0, 20).map(entityOf),
          },
        };
      }
      const columns = results[0] ? Object.keys(results[0]) : TEMPLATES[a.template_id].columns;
      return {
        content: `${count} result(s) of ${a.template_id}:\n${results
          .slice(0, 50)
          .map((r) => JSON.stringify(r))
          .join('\n')}`,
        result: { kind: 'table', columns, headers: headersFor(columns), rows: results, total_rows: count },
      };
    },
  };

  const impactTool: AgentTool = {
    name: 'impact_analysis',
    description:
      'What is affected if an entity goes down (facilities, pipelines, wells), with the monthly economic impact at given prices.',
    parameters: z
      .object({
        label: z.string().min(1).max(64).describe('vertex label, e.g. Well, Facility, Lease'),
        id: z.string().min(1).max(200),
        direction: z.enum(['both', 'outward', 'inward']).optional(),
        max_depth: z.number().int().min(1).max(6).optional(),
      })
      .strict(),
    async run(args, caller) {
      const a = args as { label: string; id: string; direction?: 'both' | 'outward' | 'inward'; max_depth?: number };
      const namespace = namespaceOf(caller.tenantId);
      const root = await resolveVertex(knex, namespace, a.label, a.id, ['args', 'label']);
      const impact = await impactOf(knex, await settings(), namespace, root, a.direction ?? 'both', {
        max_depth: a.max_depth ?? 3,
        wti_price: 75,
        henry_hub_price: 3,
      });
      const byLabel = Object.entries(impact.summary.by_label)
        .map(([label, n]) => `${n} ${label}`)
        .join(', ');
      return {
        content: `Impact of ${root.label} ${nameOf(root)}: ${impact.summary.total_affected} affected (${byLabel || 'none'}), ${impact.summary.wells_affected} other wells. Economic impact: ${JSON.stringify(impact.economic_impact)}`,
        result: {
          kind: 'impact',
          summary: impact.summary,
          economic_impact: impact.economic_impact,
          affected: impact.affected.slice(0, 100),
          truncated: impact.truncated,
          entities: [entityOf(root)],
        },
      };
    },
  };

  const tools = [graphContextTool, templateTool, impactTool, ...wellTools(deps), ...entityTools(deps)];
  return { tools: async () => tools };
}
