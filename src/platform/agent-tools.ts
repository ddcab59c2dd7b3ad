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
