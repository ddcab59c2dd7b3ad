import type { AgentTool, ToolProvider } from '../../platform/agent-tools';
import { approvedExposures } from '../../../queries/connectors/exposures';
import { toolName } from '../../../streams/connectors/connector';
import type { ConnectorsDeps } from '../../../commands/connectors/connectors-deps';
import { parameterSchema } from '../../../commands/connectors/exposure-content';
import { runExposure } from './exposure-runner';

/** What the model reads back from one run: the table as JSON lines, bounded. */
const CONTENT_LIMIT = 8000;

/**
 * Every approved exposure of an active, verified connector is an agent tool named
 * `<connector_key>__<ekey>`; asked per turn, so an approval (or a retirement) takes effect
 * on the next turn. Runs go through the same envelope as the internal execute route.
 */
export function exposureToolProvider(deps: ConnectorsDeps): ToolProvider {
  return {
    async tools(caller) {
      const rows = await approvedExposures(deps.knex, caller.tenantId);
      return rows.map((row): AgentTool => ({
        name: toolName(row.connector_key, row.ekey),
        description:
          [row.display_name, row.description].filter(Boolean).join(': ') ||
          `Guarded query ${row.ekey} on ${row.connector_key}`,
        parameters: parameterSchema(row.parameters),
        async run(args, who) {
          const result = await runExposure(deps, row.connector_key, row.ekey, args, 'execute', {
            tenantId: who.tenantId,
            actorId: who.userId,
          });
          const lines = [
            result.columns.map((c) => c.name).join('\t'),
            ...result.rows.map((r) =>
              r.map((v) => (v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v))).join('\t'),
            ),
          ];
          let content = lines.join('\n');
          if (content.length > CONTENT_LIMIT)
            content = `${content.slice(0, CONTENT_LIMIT)}\n… (cut at ${CONTENT_LIMIT} characters)`;
          if (result.truncated) content += `\n(row cap reached: ${result.row_count} rows shown)`;
          return { content, result: { kind: 'table', columns: result.columns.map((c) => c.name), rows: result.rows } };
        },
      }));
    },
  };
}
