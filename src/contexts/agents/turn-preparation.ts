import type { CommandContext } from '../../platform/command-handling/command-handler';
import { derivedUuid } from '../../platform/command-handling/idempotency';
import type { PlatformDeps } from '../../platform/context-module';
import type { ModelRouter } from '../../platform/infra/llm/model-router';
import { resolveEffectiveSettings, type TurnSettings } from '../settings';
import { appendMessageCommand, appendMessagesDecision } from '../../../commands/conversations/append-message';
import { startTurnDecision } from '../../../commands/agents/start-turn';
import { attachmentTexts } from '../../../queries/conversations/attachments';
import { type MemoryMessage, turnConversation } from '../../../queries/agents/memory';
import { projectContext } from '../../../queries/conversations/projects';
import type { TurnOutcome } from '../../../streams/agents/turn';
import type { SystemPromptResolver } from './system-prompt';
import { turnReservationOf } from './turn-budget';
import { reserveTurnBudgetDecisions } from '../../../commands/agents/reserve-turn-budget';
import { USAGE_WRITE_RETRIES, usageDayOf } from '../../../streams/agents/daily-usage';

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
  messages: Array<{
    role: string;
    content: string;
    tool_calls: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  }>;
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
  /** The conversation's most recent messages before this turn's, oldest first (its memory). */
  history: MemoryMessage[];
  context: CommandContext;
}

/** How many of the conversation's latest messages a turn remembers. */
const MEMORY_MESSAGES = 40;

/**
 * Everything that can refuse the turn, in the order the spec's errors imply: the
 * conversation (404, nothing appended), the settings (422 for an unknown model), the daily
 * caps (429: the budget reservation, turn-budget.ts), then the user's message (422 for a
 * foreign attachment id); the last two are decided in the one write that starts the turn.
 */
export async function prepareTurn(engine: TurnEngine, request: TurnRequest): Promise<PreparedTurn> {
  const { deps } = engine;
  // The conversation and its latest messages in one read, before the turn adds its own.
  const { conversation, recent: history } = await turnConversation(
    deps.knex,
    request.tenantId,
    request.conversationId,
    request.userId,
    MEMORY_MESSAGES,
  );
  const project = conversation.project_id
    ? await projectContext(deps.knex, request.tenantId, conversation.project_id)
    : null;
  const projectMode =
    project && typeof project.defaults?.thinking_mode === 'string' ? project.defaults.thinking_mode : null;
  const settings = await resolveEffectiveSettings(deps, {
    tenantId: request.tenantId,
    userId: request.userId,
    request: {
      model: request.model ?? null,
      maxTokens: request.maxTokens ?? null,
      maxCostUsd: request.maxCostUsd ?? null,
      thinkingMode: request.thinkingMode ?? null,
      projectThinkingMode: projectMode,
    },
  });
  const context: CommandContext = {
    tenantId: request.tenantId,
    actorId: request.userId,
    correlationId: request.correlationId,
  };
  const reservation = await turnReservationOf(deps, settings, request.executionId, request.message);
  const budgetDay = usageDayOf(deps.clock());
  const files = await attachmentTexts(deps.knex, request.tenantId, request.conversationId, request.attachmentIds);
  const userMessageId = derivedUuid('agents.user-message', request.tenantId, request.executionId);
  const message = appendMessageCommand(request.userId, {
    message_id: userMessageId,
    role: 'user',
    content: request.message,
    attachment_ids: request.attachmentIds,
    metadata: { ...(request.metadata ?? {}), execution_id: request.executionId },
  });
  // One write: the budget reservation (429 at a daily cap), the user's message (422 for a
  // foreign attachment) and TurnStarted. A refused turn writes nothing, so has nothing to release.
  await deps.handle.together(
    [
      ...reserveTurnBudgetDecisions(request.tenantId, reservation, budgetDay),
      appendMessagesDecision(request.tenantId, request.conversationId, [message]),
      startTurnDecision(request.tenantId, {
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
        budgetDay,
      }),
    ],
    context,
    { retries: USAGE_WRITE_RETRIES },
  );
  return {
    request,
    settings,
    projectId: project?.id ?? null,
    attachments: files.map((f) => ({ filename: f.filename, text: f.text })),
    history,
    context,
  };
}
