import type { CommandContext } from '../../platform/command-handling/command-handler';
import { derivedUuid } from '../../platform/command-handling/idempotency';
import type { PlatformDeps } from '../../platform/context-module';
import { RateLimited } from '../../platform/domain-errors';
import type { ModelRouter } from '../../platform/infra/llm/model-router';
import { resolveEffectiveSettings, TurnSettings } from '../settings/effective-settings';
import { appendMessage } from '../../../commands/conversations/append-message';
import { startTurn } from '../../../commands/agents/start-turn';
import { attachmentTexts } from '../../../queries/conversations/attachments';
import { visibleConversation } from '../../../queries/conversations/conversations';
import { projectContext } from '../../../queries/conversations/projects';
import { dailyUsage } from '../../../queries/agents/usage';
import type { TurnOutcome } from '../../../streams/agents/turn';
import type { SystemPromptResolver } from './system-prompt';

/**
 * The request side of an agent turn: what a turn is asked to do, and everything that may
 * refuse it before it exists (404, 422, 429). `runTurn` (turn-runner.ts) takes it from there.
 */
export interface TurnRequest {
  tenantId: string;
  userId: string;
  permissions: string[];
  conversationId: string;
  message: string;
  agentType: string;
  agentId: string;
  model?: string;
  systemPrompt?: string;
  maxTokens?: number;
  maxCostUsd?: number;
  thinkingMode?: string;
  attachmentIds: string[];
  metadata?: Record<string, unknown>;
  executionId: string;
  correlationId?: string;
}


export interface TurnEngine {
  deps: PlatformDeps;
  models: ModelRouter;
  resolveSystemPrompt: SystemPromptResolver;
}

export interface ExecutionResult {
  execution_id: string;
  conversation_id: string;
  status: TurnOutcome['status'];
  messages: Array<{ role: string; content: string; tool_calls: Array<{ id: string; name: string; args: Record<string, unknown> }> }>;
  tokens_used: number | null;
  cost_usd: number | null;
  skills_injected: string[];
  thinking_mode: string | null;
  referenced_entities: Array<{ entity_id: string; name: string; entity_type: string }>;
  hitl_approval_id: string | null;
  hitl_checkpoint_type: string | null;
  error: string | null;
}

export interface PreparedTurn {
  request: TurnRequest;
  settings: TurnSettings;
  projectId: string | null;
  attachments: Array<{ filename: string; text: string }>;
  context: CommandContext;
}

const today = (now: Date) => now.toISOString().slice(0, 10);

/** Daily caps (spec 1 §4 items 2–4): checked against the usage projection before the turn. */
export async function checkDailyCaps(deps: Pick<PlatformDeps, 'knex' | 'clock'>, settings: TurnSettings): Promise<void> {
  const usage = await dailyUsage(deps.knex, settings.tenantId, settings.userId, today(deps.clock()));
  const over = (used: number, cap: number | null) => cap !== null && used >= cap;
  const t = settings.tenantDailyCaps;
  if (over(usage.tenant.tokensUsed, t.maxTokensPerDay)) throw new RateLimited(`daily token cap of the tenant exhausted (${usage.tenant.tokensUsed} of ${t.maxTokensPerDay})`);
  if (over(usage.tenant.costUsd, t.maxCostUsdPerDay)) throw new RateLimited(`daily cost cap of the tenant exhausted ($${usage.tenant.costUsd.toFixed(4)} of $${t.maxCostUsdPerDay})`);
  const u = settings.userDailyCaps;
  if (u && over(usage.user.tokensUsed, u.maxTokensPerDay)) throw new RateLimited(`your daily token cap is exhausted (${usage.user.tokensUsed} of ${u.maxTokensPerDay})`);
  if (u && over(usage.user.costUsd, u.maxCostUsdPerDay)) throw new RateLimited(`your daily cost cap is exhausted ($${usage.user.costUsd.toFixed(4)} of $${u.maxCostUsdPerDay})`);
}

/**
 * Everything that can refuse the turn, in the order the spec's errors imply: the
 * conversation (404, nothing appended), the settings (422 for an unknown model), the daily
 * caps (429), then the user's message (422 for a foreign attachment id) and TurnStarted.
 */
export async function prepareTurn(engine: TurnEngine, request: TurnRequest): Promise<PreparedTurn> {
  const { deps } = engine;
  const conversation = await visibleConversation(deps.knex, request.tenantId, request.conversationId, request.userId);
  const project = conversation.project_id ? await projectContext(deps.knex, request.tenantId, conversation.project_id) : null;
  const projectMode = project && typeof project.defaults?.thinking_mode === 'string' ? project.defaults.thinking_mode : null;
  const settings = await resolveEffectiveSettings(deps, {
    tenantId: request.tenantId,
    userId: request.userId,
    request: { model: request.model ?? null, maxTokens: request.maxTokens ?? null, maxCostUsd: request.maxCostUsd ?? null, thinkingMode: request.thinkingMode ?? null, projectThinkingMode: projectMode },
  });
  await checkDailyCaps(deps, settings);
  const context: CommandContext = { tenantId: request.tenantId, actorId: request.userId, correlationId: request.correlationId };
  const userMessageId = derivedUuid('agents.user-message', request.tenantId, request.executionId);
  await appendMessage(
    deps,
    { tenantId: request.tenantId, conversationId: request.conversationId, callerId: request.userId },
    { message_id: userMessageId, role: 'user', content: request.message, attachment_ids: request.attachmentIds, metadata: { ...(request.metadata ?? {}), execution_id: request.executionId } },
  );
  const files = await attachmentTexts(deps.knex, request.tenantId, request.conversationId, request.attachmentIds);
  await startTurn(deps, context, {
    executionId: request.executionId,
    conversationId: request.conversationId,
    userId: request.userId,
    agentId: request.agentId,
    agentType: request.agentType,
    model: settings.model,
    fallbackModel: settings.fallbackModel,
    thinkingMode: settings.thinkingMode,
    maxTokens: settings.maxTokensPerExecution,
    maxCostUsd: settings.maxCostUsdPerExecution,
    userMessageId,
    attachmentIds: request.attachmentIds,
  });
  return { request, settings, projectId: project?.id ?? null, attachments: files.map((f) => ({ filename: f.filename, text: f.text })), context };
}

