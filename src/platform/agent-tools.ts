import type { ZodTypeAny } from 'zod';
import type { Config } from './config';
import { Forbidden } from './domain-errors';

/**
 * The tools an agent turn may call. Contexts contribute them (the graph its templates and
 * context assembly, connectors their approved exposures) through `ContextModule.agentTools`;
 * the agents context asks the registry per turn, so a tool approved a second ago is callable
 * in the next turn without a restart.
 */
export interface ToolCaller {
  tenantId: string;
  userId: string;
  permissions: string[];
  /** Aborted when the turn's budget or deadline stops the tool loop. */
  signal?: AbortSignal;
}

export interface ToolOutput {
  /** What the model reads back (text, bounded). */
  content: string;
  /**
   * Rich output for people (a table `{kind: 'table', columns, rows}`, a chart specification
   * `{kind: 'chart', …}`); persisted as the tool message's `metadata.tool_result`.
   */
  result?: unknown;
}

export interface AgentTool {
  /** Unique per tenant: `[a-zA-Z0-9_-]{1,64}` (provider function-name rules), e.g. `graph_context`, `<connector_key>__<ekey>`. */
  name: string;
  description: string;
  /** Arguments, validated before `run`; also rendered to JSON Schema for the model. */
  parameters: ZodTypeAny;
  run(args: unknown, caller: ToolCaller): Promise<ToolOutput>;
}

export interface ToolProvider {
  tools(caller: ToolCaller): Promise<AgentTool[]>;
}

export interface ToolRegistry {
  register(provider: ToolProvider): void;
  /** Every tool the caller's tenant offers now; a failing provider is skipped, not fatal. */
  list(caller: ToolCaller, onProviderError?: (error: unknown) => void): Promise<AgentTool[]>;
}

export function createToolRegistry(): ToolRegistry {
  const providers: ToolProvider[] = [];
  return {
    register(provider) {
      providers.push(provider);
    },
    async list(caller, onProviderError) {
      const lists = await Promise.all(
        providers.map((p) =>
          p.tools(caller).catch((error) => {
            onProviderError?.(error);
            return [] as AgentTool[];
          }),
        ),
      );
      const byName = new Map<string, AgentTool>();
      for (const tool of lists.flat()) if (!byName.has(tool.name)) byName.set(tool.name, tool);
      return [...byName.values()];
    },
  };
}

/**
 * The permission check of a tool, the same as its HTTP route's: a caller without the
 * permission is refused, except in SVC_AUTH_MODE=log (rollout), where routes only log too.
 */
export function requireToolPermission(caller: ToolCaller, permission: string, config: Pick<Config, 'authMode'>): void {
  if (caller.permissions.includes(permission) || config.authMode === 'log') return;
  throw new Forbidden(`this tool needs the ${permission} permission`);
}

/**
 * The header people read for a table column of a tool result, with its unit: a tool's
 * `result.headers` maps each of its `columns` (machine keys, kept for clients) to one of
 * these, and the console shows the header, never the key.
 */
const COLUMN_HEADERS: Record<string, string> = {
  entity_id: 'Entity id',
  entity_name: 'Name',
  entity_type: 'Type',
  name: 'Name',
  label: 'Type',
  status: 'Status',
  operator: 'Operator',
  lease: 'Lease',
  county: 'County',
  field: 'Field',
  rule: 'Rule',
  reason: 'Reason',
  due_date: 'Due date',
  what: 'What is due',
  source: 'Source',
  authorization: 'Authorization',
  authorized_mcf_per_day: 'Authorized (mcf/d)',
  expiry_date: 'Expires',
  days_left: 'Days left',
  period: 'Month',
  oil_bbl: 'Oil (bbl)',
  gas_mcf: 'Gas (mcf)',
  distance_ft: 'Distance (ft)',
  same_horizon: 'Same horizon',
  within_rule_37: 'Inside Rule 37 spacing',
  api_number: 'API number',
  match: 'Found by',
  fact: 'Fact',
  value: 'Value',
  item: 'Item',
  summary: 'Summary',
  topic: 'Topic',
  answer: 'Answer',
};

/** `{column: header}` for a tool's columns: the known header, else the key in words ("next_due" → "Next due"). */
export function headersFor(columns: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    columns.map((c) => [c, COLUMN_HEADERS[c] ?? `${c[0].toUpperCase()}${c.slice(1).replace(/_/g, ' ')}`]),
  );
}
