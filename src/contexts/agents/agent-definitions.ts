import { z } from 'zod';

/**
 * Agent types: a free-form slug resolved at run time. A known
 * type brings its prompt and tool set; an unknown but well-formed one runs as a general
 * agent limited to the core tools; a malformed slug is refused (422).
 */
export const AGENT_TYPE = z
  .string()
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a slug: 1 to 64 characters of a-z, 0-9, "_" or "-"');
export const DEFAULT_AGENT_TYPE = 'general';

/** Tools every agent type has, whatever the registry offers besides. */
export const CORE_TOOLS: readonly string[] = [
  'load_skill',
  'request_approval',
  'graph_context',
  'find_entities',
  'platform_help',
];

export interface AgentDefinition {
  key: string;
  /** False when the asked-for type is unknown and this definition is the degraded one. */
  known: boolean;
  prompt: string;
  /** 'all': every tool the registry offers; else these names only. */
  tools: 'all' | readonly string[];
}

const PREAMBLE =
  'You are a compliance assistant for a Texas oil and gas operator (Railroad Commission of Texas rules, 16 TAC chapter 3). Answer from the facts the tools return; say when a fact is missing instead of guessing. Before anything is filed or submitted to a regulator, call request_approval: a person reviews it first.';

const DEFINITIONS: Record<string, Omit<AgentDefinition, 'key' | 'known'>> = {
  general: { prompt: PREAMBLE, tools: 'all' },
  filing_prep: {
    prompt: `${PREAMBLE} You prepare regulatory filings (Form PR, W-10, G-10, flaring exceptions): gather the data per lease and well, list what is missing, and ask for approval before submission.`,
    tools: 'all',
  },
  field_event: {
    prompt: `${PREAMBLE} You help field staff record and assess operational events (spills, flaring, shut-ins): find the affected wells and facilities and what must be reported, by when.`,
    tools: [
      ...CORE_TOOLS,
      'graph_query_template',
      'impact_analysis',
      'log_operational_event',
      'recent_operational_events',
      'compliance_status',
      'flaring_authorizations',
      'production_summary',
    ],
  },
};

export function resolveAgent(agentType: string): AgentDefinition {
  const known = Object.prototype.hasOwnProperty.call(DEFINITIONS, agentType);
  if (known) return { key: agentType, known: true, ...DEFINITIONS[agentType] };
  return { key: agentType, known: false, prompt: PREAMBLE, tools: CORE_TOOLS };
}

export function agentAllows(agent: AgentDefinition, toolName: string): boolean {
  return agent.tools === 'all' || agent.tools.includes(toolName);
}
