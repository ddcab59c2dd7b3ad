import type { PlatformDeps } from '../../platform/context-module';
import { derivedUuid } from '../../platform/command-handling/idempotency';
import { DomainError } from '../../platform/domain-errors';
import { createModelRouter } from '../../platform/infra/llm/model-router';
import { complianceAssistant, prepareTurn, promptsSystemPrompt, runTurn, type TurnEngine } from '../agents';
import { addAttachment } from '../../../commands/conversations/add-attachment';
import { createConversation } from '../../../commands/conversations/create-conversation';
import type { ExtractedFileData } from '../../../streams/conversations/extracted-file';
import { conversationStream, readConversationEvent } from '../../../streams/conversations/conversation';
import type { FrozenTurn } from '../../../commands/evaluation/turn-snapshot';

/** The evaluation-runner system account: replay conversations and turns are its own. */
export const EVAL_RUNNER_ID = '00000000-0000-0000-0000-00000000000e';
/** What the runner may do in a replayed turn: what every user may. */
const RUNNER_PERMISSIONS = ['conversations.use', 'dashboards.read'];

export interface ReplayOutput {
  status: string;
  answer: string;
  toolNames: string[];
  skills: string[];
  replayExecutionId: string | null;
  tokensUsed: number | null;
  costUsd: number | null;
  error: string | null;
}

export interface Replayer {
  mode: 'live' | 'frozen';
  replay(tenantId: string, frozen: FrozenTurn, model: string, caseKey: string): Promise<ReplayOutput>;
}

/** The recorded outputs as they are (no re-execution): grades the turns as they happened. */
export const frozenReplayer: Replayer = {
  mode: 'frozen',
  async replay(_tenantId, frozen) {
    return {
      status: frozen.outcome?.status ?? 'error',
      answer: frozen.answer,
      toolNames: frozen.toolNames,
      skills: frozen.outcome?.skillsInjected ?? [],
      replayExecutionId: null,
      tokensUsed: 0,
      costUsd: 0,
      error: frozen.outcome ? frozen.outcome.error : 'the turn never finished',
    };
  },
};

/**
 * The turn's user message and the attachments it carried, from the conversation's log
 * (`TurnStarted.userMessageId`, `attachmentIds`): the extracted text as it was then, even if
 * the attachment was removed since.
 */
async function frozenInput(
  deps: Pick<PlatformDeps, 'store'>,
  tenantId: string,
  frozen: FrozenTurn,
): Promise<{ message: string; attachments: Array<{ attachmentId: string } & ExtractedFileData> } | null> {
  const wanted = new Set(frozen.started.attachmentIds);
  let message: string | null = null;
  const attachments = new Map<string, { attachmentId: string } & ExtractedFileData>();
  for (const stored of await deps.store.readStream(conversationStream(tenantId, frozen.started.conversationId))) {
    if (stored.type !== 'MessageAppended' && stored.type !== 'AttachmentAdded') continue;
    const event = readConversationEvent(stored);
    if (event.type === 'MessageAppended' && event.data.messageId === frozen.started.userMessageId)
      message = event.data.content;
    if (event.type === 'AttachmentAdded' && wanted.has(event.data.attachmentId))
      attachments.set(event.data.attachmentId, event.data);
  }
  return message === null ? null : { message, attachments: [...attachments.values()] };
}

/**
 * Re-executes the frozen input against the current code and the chosen model: the same
 * user message, agent, thinking mode and budgets, in a conversation of type `replay` owned
 * by the evaluation runner (hidden from lists), through the agents context's own
 * preparation and pipeline. The attachments the turn carried are added to the replay
 * conversation with their extracted text as it was; the turn's metadata names what it replays.
 */
export function liveReplayer(deps: PlatformDeps, runId: string): Replayer {
  const engine: TurnEngine = {
    deps,
    models: createModelRouter(deps.config.llm, { assistant: complianceAssistant(deps.clock) }),
    resolveSystemPrompt: promptsSystemPrompt(deps),
  };
  return {
    mode: 'live',
    async replay(tenantId, frozen, model, caseKey) {
      const failed = (error: string): ReplayOutput => ({
        status: 'error',
        answer: '',
        toolNames: [],
        skills: [],
        replayExecutionId: null,
        tokensUsed: null,
        costUsd: null,
        error,
      });
      const input = await frozenInput(deps, tenantId, frozen);
      if (input === null)
        return failed(`the turn's user message ${frozen.started.userMessageId} is not in the conversation's log`);
      const conversationId = `replay-${derivedUuid('evaluation.replay-conversation', runId, caseKey)}`;
      const executionId = derivedUuid('evaluation.replay-execution', runId, caseKey);
      try {
        await createConversation(deps, tenantId, {
          type: 'CreateConversation',
          conversationId,
          userId: EVAL_RUNNER_ID,
          agentId: frozen.started.agentId,
          title: `Replay of ${frozen.executionId}`,
          conversationType: 'replay',
          projectId: null,
          metadata: { eval_run_id: runId, replay_of: frozen.executionId },
        });
        for (const a of input.attachments) {
          await addAttachment(deps, tenantId, conversationId, {
            type: 'AddAttachment',
            callerId: EVAL_RUNNER_ID,
            attachmentId: a.attachmentId,
            filename: a.filename,
            sizeBytes: a.sizeBytes,
            extracted: {
              contentType: a.contentType,
              text: a.text,
              tokenEstimate: a.tokenEstimate,
              truncated: a.truncated,
            },
          });
        }
        const prepared = await prepareTurn(engine, {
          tenantId,
          userId: EVAL_RUNNER_ID,
          permissions: RUNNER_PERMISSIONS,
          conversationId,
          message: input.message,
          agentType: frozen.started.agentType,
          agentId: frozen.started.agentId,
          model,
          maxTokens: frozen.started.maxTokens ?? undefined,
          maxCostUsd: frozen.started.maxCostUsd ?? undefined,
          thinkingMode: frozen.started.thinkingMode,
          attachmentIds: input.attachments.map((a) => a.attachmentId),
          metadata: { eval_run_id: runId, replay_of: frozen.executionId },
          executionId,
        });
        const result = await runTurn(engine, prepared);
        const assistant = result.messages.filter((m) => m.role === 'assistant' && m.content);
        return {
          status: result.status,
          answer: assistant.length ? assistant[assistant.length - 1].content : '',
          toolNames: result.messages.flatMap((m) => m.tool_calls.map((c) => c.name)),
          skills: result.skills_injected,
          replayExecutionId: executionId,
          tokensUsed: result.tokens_used,
          costUsd: result.cost_usd,
          error: result.error,
        };
      } catch (error) {
        if (error instanceof DomainError) return failed(`replay refused: ${error.message}`);
        throw error;
      }
    },
  };
}
