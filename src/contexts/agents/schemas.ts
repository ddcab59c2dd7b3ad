import { z } from 'zod';
import { boundedRecord } from '../../platform/http/bounded';
import { AGENT_TYPE, DEFAULT_AGENT_TYPE } from './agent-definitions';
import { SKILL_KEY } from '../../../streams/agents/skill';
import { CONVERSATION_ID, MAX_ATTACHMENTS_PER_MESSAGE } from '../../../streams/conversations/conversation';

/** Request schemas of the agents routes, shared by http.ts (parsing) and openapi.ts (the contract). */
/**
 * Agent execution: POST /execute and its alias run a turn and
 * answer with the execution result; GET /conversations/{id}/stream runs or attaches to a
 * turn as server-sent events replayed and followed from the turn's own stream. Skills
 * (read by everyone, written with `skills.author`) live here too.
 */
export const ExecuteBody = z.object({
  conversation_id: CONVERSATION_ID,
  message: z.string().min(1).max(200_000),
  agent_type: AGENT_TYPE.default(DEFAULT_AGENT_TYPE),
  agent_id: z.string().min(1).max(128).default('default'),
  tenant_id: z.string().max(64).optional(),
  model: z.string().min(1).max(200).optional(),
  system_prompt: z.string().min(1).max(50_000).optional(),
  max_tokens: z.number().int().positive().max(100_000_000).optional(),
  max_cost_usd: z.number().positive().optional(),
  // Any value is accepted and clamped to the tenant ceiling, never rejected.
  thinking_mode: z.string().max(64).optional(),
  attachment_ids: z
    .array(z.string().min(1).max(128))
    .max(MAX_ATTACHMENTS_PER_MESSAGE, `at most ${MAX_ATTACHMENTS_PER_MESSAGE} attachments per message`)
    .default([]),
  metadata: boundedRecord(z.unknown()).optional(),
});

/** `POST /agents/{agent_id}/execute`: the path names the agent as `agent_id` in the body does. */
export const AgentPathParams = z.object({ agent_id: z.string().min(1).max(128) });

export const StreamParams = z.object({ id: CONVERSATION_ID });

export const SkillParams = z.object({ key: SKILL_KEY });

export const StreamQuery = z.object({
  message: z.string().min(1).max(20_000).optional(),
  attachment_ids: z
    .string()
    .max(1000)
    .optional()
    .transform((ids) =>
      (ids ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine(
      (ids) => ids.length <= MAX_ATTACHMENTS_PER_MESSAGE,
      `at most ${MAX_ATTACHMENTS_PER_MESSAGE} attachments per message`,
    ),
  thinking_mode: z.string().max(64).optional(),
  agent_id: z.string().min(1).max(128).default('default'),
  agent_type: AGENT_TYPE.default(DEFAULT_AGENT_TYPE),
  model: z.string().min(1).max(200).optional(),
  last_event_id: z.string().max(300).optional(),
});
