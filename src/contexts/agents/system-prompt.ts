import type { PlatformDeps } from '../../platform/context-module';
import { renderTemplate } from '../../../streams/prompts/template-engine';
import { resolvePrompt, systemPromptRef } from '../../../queries/prompts/resolve-prompt';

/**
 * Where an agent type's system prompt comes from: the prompts context's template
 * `agents:<agent type>` (the caller's pre-production version when targeted, else the active
 * one), rendered with the turn's variables; the built-in prompt when there is none or it
 * cannot be rendered (logged), so a prompt mistake never stops a turn.
 */
export interface SystemPromptInput {
  tenantId: string;
  userId: string;
  agentType: string;
  agentId: string;
  /** The agent type's built-in prompt. */
  fallback: string;
}

export interface SystemPrompt {
  text: string;
  /** `builtin`, or the prompt version that was served. */
  source: { kind: 'builtin' } | { kind: 'prompts'; versionId: string; versionNumber: number; status: string };
}

export type SystemPromptResolver = (input: SystemPromptInput) => Promise<SystemPrompt>;

export const builtinSystemPrompt: SystemPromptResolver = async ({ fallback }) => ({
  text: fallback,
  source: { kind: 'builtin' },
});

export function promptsSystemPrompt(deps: Pick<PlatformDeps, 'knex' | 'cache' | 'logger'>): SystemPromptResolver {
  return async (input) => {
    const ref = systemPromptRef(input.agentType);
    try {
      const resolved = await resolvePrompt(deps, { tenantId: input.tenantId, userId: input.userId, ref });
      if (!resolved) return builtinSystemPrompt(input);
      const text = renderTemplate(resolved.body, {
        agent_type: input.agentType,
        agent_id: input.agentId,
        builtin_prompt: input.fallback,
      });
      return {
        text,
        source: {
          kind: 'prompts',
          versionId: resolved.version_id,
          versionNumber: resolved.version_number,
          status: resolved.source,
        },
      };
    } catch (err) {
      deps.logger.warn(
        { err, ref, tenantId: input.tenantId },
        'system prompt template unusable; the built-in prompt is used',
      );
      return builtinSystemPrompt(input);
    }
  };
}
