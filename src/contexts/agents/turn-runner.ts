import { Unavailable } from '../../platform/domain-errors';
import type { ModelMessage } from 'ai';
import type { AgentTool, ToolCaller } from '../../platform/agent-tools';
import { derivedUuid } from '../../platform/command-handling/idempotency';
import { callModel, type ModelReply } from '../../platform/infra/llm/model-router';
import { costOf } from '../../platform/infra/llm/model-prices';
import { countTokens, truncateToTokens } from '../../platform/infra/tokens';
import { MODEL_OPTIONS } from '../../platform/infra/llm/model-options';
import { toolInputSchema } from '../../platform/infra/llm/ai-sdk';
import { agentAllows, resolveAgent } from './agent-definitions';
import type { SkillDefinition } from '../../../streams/agents/builtin-skills';
import { openApprovalFor, resumeGuard } from './resume-guard';
import { outcomeWire } from './turn-frames';
import type { ExecutionResult, PreparedTurn, TurnEngine } from './turn-preparation';
import { type ApprovalAsk, loadSkillTool, type PrepareFiling, requestApprovalTool } from './turn-tools';
import { platformHelpTool } from './help-tool';
import { filingPayload } from '../../../commands/checklists/filing-payload';
import { appendMessageCommand } from '../../../commands/conversations/append-message';
import { TurnWrites } from './turn-writes';
import { runningHere } from '../../../commands/agents/running-turns';
import { awaitApproval } from '../../../commands/conversations/await-approval';
import { releaseApprovalDecision } from '../../../commands/conversations/release-approval-decision';
import { requestApproval } from '../../../commands/approvals/request-approval';
import { projectContext } from '../../../queries/conversations/projects';
import { projectInjected } from '../../../queries/agents/memory';
import { effectiveSkills } from '../../../queries/agents/skills';
import {
  type NodeMessage,
  type PipelineNode,
  type ProgressEvent,
  type ReferencedEntity,
  type TurnOutcome,
  type TurnToolCall,
} from '../../../streams/agents/turn';

/** The turn ran, but its end and reply are not in the log: nothing may be answered as done. */
class TurnEndNotRecorded extends Unavailable {}

const MAX_TOOL_ROUNDS = 6;
const TOOL_CONTENT_TOKENS = 4000;

class TurnStopped extends Error {}

/**
 * One agent turn: the pipeline `system_prompt_node`,
 * `memory_node`, `resume_guard`, `initial_llm_call` ↔ `tool_node` while tools are called,
 * `approval_node`, `output_format`, then `done`. Every node's completion is an event of the
 * turn's own stream, which is what SSE readers replay and follow; the conversation receives
 * the user, tool and assistant messages, each carrying the `execution_id`.
 *
 * `prepareTurn` does everything that may refuse the request (404, 422, 429) before the turn
 * exists (turn-preparation.ts); `runTurn` never throws: failures end the turn with status `error`.
 */
export async function runTurn(engine: TurnEngine, prepared: PreparedTurn): Promise<ExecutionResult> {
  const { deps, models } = engine;
  const { request, settings, context } = prepared;
  const { tenantId, conversationId, executionId } = request;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('turn deadline exceeded')), deps.config.llm.turnTimeoutMs);
  timer.unref();
  // The scheduled deadline leaves a turn running here to this clock (commands/agents/turn-deadline.ts).
  const ranHere = runningHere(executionId);

  const produced: ExecutionResult['messages'] = [];
  const skillsInjected: string[] = [];
  const referenced = new Map<string, ReferencedEntity>();
  let approvalAsk: ApprovalAsk | null = null;
  let knownTokens = 0;
  let budgetTokens = 0;
  let anyUsageKnown = false;
  let inputTokens: number | null = null;
  let outputTokens: number | null = null;
  let cost: number | null = null;
  let modelUsed = settings.model;
  let approval: { id: string; checkpointType: string } | null = null;
  /** The decision this turn consumed at `resume_guard`: given back if the turn ends in error. */
  let consumed: Extract<Awaited<ReturnType<typeof resumeGuard>>, { status: 'resumed' }> | null = null;

  const caller: ToolCaller = {
    tenantId,
    userId: request.userId,
    permissions: request.permissions,
    signal: deadline.signal,
  };
  // Progress and messages are held and written together when a wait turns out slow, and with the end.
  const writes = new TurnWrites(deps, context, { conversationId, executionId });
  const record = (events: ProgressEvent[]) => writes.record(events);
  const nodeDone = (
    node: PipelineNode,
    status: string,
    extra: {
      tokensUsed?: number | null;
      message?: NodeMessage | null;
      skillsLoaded?: string[] | null;
      detail?: Record<string, unknown> | null;
    } = {},
  ) =>
    record([
      {
        type: 'NodeCompleted',
        data: {
          node,
          status,
          tokensUsed: extra.tokensUsed ?? null,
          message: extra.message ?? null,
          skillsLoaded: extra.skillsLoaded ?? null,
          detail: extra.detail ?? null,
        },
      },
    ]);
  const append = (
    role: 'assistant' | 'tool' | 'system',
    content: string,
    extra: { toolName?: string; metadata?: Record<string, unknown>; key: string },
  ) =>
    writes.message(
      appendMessageCommand(request.userId, {
        message_id: derivedUuid('agents.message', tenantId, executionId, extra.key),
        role,
        content,
        tool_name: extra.toolName ?? null,
        metadata: { execution_id: executionId, ...(extra.metadata ?? {}) },
      }),
    );

  const outcome = (status: TurnOutcome['status'], error: string | null): TurnOutcome => ({
    status,
    tokensUsed: anyUsageKnown ? knownTokens : null,
    costUsd: cost,
    skillsInjected,
    thinkingMode: settings.thinkingMode,
    referencedEntities: [...referenced.values()],
    hitlApprovalId: approval?.id ?? null,
    hitlCheckpointType: approval?.checkpointType ?? null,
    error,
  });

  async function finish(result: TurnOutcome): Promise<ExecutionResult> {
    clearTimeout(timer);
    try {
      await writes.finish({
        outcome: result,
        usage: {
          userId: request.userId,
          model: modelUsed,
          inputTokens,
          outputTokens,
          tokensUsed: result.tokensUsed,
          costUsd: result.costUsd,
        },
      });
    } catch (err) {
      deps.logger.error({ err, executionId }, 'turn end not recorded');
      // Answering the outcome would acknowledge a reply the conversation does not hold: the
      // caller is told to retry instead (the turn deadline closes the turn that stays open).
      throw new TurnEndNotRecorded('the turn ran but its end could not be recorded; please retry');
    } finally {
      ranHere();
    }
    return { ...outcomeWire(executionId, result), conversation_id: conversationId, messages: produced };
  }

  try {
    // system_prompt_node: the agent's prompt (or the request's), plus the skill catalogue.
    const agent = resolveAgent(request.agentType);
    const skills = await effectiveSkills(deps.knex, tenantId);
    const resolved = request.systemPrompt
      ? null
      : await engine.resolveSystemPrompt({
          tenantId,
          userId: request.userId,
          agentType: agent.key,
          agentId: request.agentId,
          fallback: agent.prompt,
        });
    const base = request.systemPrompt ?? resolved!.text;
    const promptSource =
      resolved === null
        ? { prompt_source: 'request' }
        : resolved.source.kind === 'builtin'
          ? { prompt_source: 'builtin' }
          : {
              prompt_source: 'prompts',
              prompt_version_id: resolved.source.versionId,
              prompt_version_number: resolved.source.versionNumber,
              prompt_status: resolved.source.status,
            };
    const catalogue =
      skills.length > 0
        ? `\n\nSkills you can load with load_skill when the user's request calls for one:\n${skills.map((s) => `- skill ${s.key}: ${s.name}. ${s.description} Triggers: ${s.triggerWords.join(', ')}`).join('\n')}`
        : '';
    const systemParts = [base + catalogue];
    await nodeDone('system_prompt_node', 'ok', {
      tokensUsed: countTokens(systemParts[0]),
      detail: {
        agent_type: agent.key,
        agent_type_known: agent.known,
        ...promptSource,
        skills_available: skills.map((s) => s.key),
      },
    });

    // memory_node: project context once per conversation, recent history, attachments.
    let projectInjectedNow = false;
    if (prepared.projectId && !(await projectInjected(deps.knex, tenantId, conversationId, prepared.projectId))) {
      const project = await projectContext(deps.knex, tenantId, prepared.projectId);
      if (project) {
        const text = [
          project.instructions
            ? `Project "${project.name}" instructions:\n${project.instructions}`
            : `Project "${project.name}".`,
          ...project.knowledge.map((k) => `Project knowledge file ${k.filename}:\n${k.text}`),
        ].join('\n\n');
        append('system', text, { key: `project-${project.id}`, metadata: { project_context: project.id } });
        systemParts.push(text);
        projectInjectedNow = true;
      }
    }
    const { history } = prepared;
    const messages: ModelMessage[] = [];
    for (const row of history) {
      if (row.metadata?.execution_id === executionId && row.role === 'user') continue;
      if (row.role === 'system') systemParts.push(row.content);
      else if (row.role === 'user') messages.push({ role: 'user', content: row.content });
      else if (row.role === 'assistant') messages.push({ role: 'assistant', content: row.content });
      else if (row.role === 'tool')
        messages.push({
          role: 'assistant',
          content: `(${row.tool_name ?? 'tool'} returned) ${truncateToTokens(row.content, 500).text}`,
        });
    }
    const attachmentText = prepared.attachments.map((a) => `\n\n--- attachment: ${a.filename} ---\n${a.text}`).join('');
    messages.push({ role: 'user', content: request.message + attachmentText });
    await nodeDone('memory_node', 'ok', {
      tokensUsed: countTokens(messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n')),
      detail: {
        messages_loaded: history.length,
        project_context_injected: projectInjectedNow,
        attachments: prepared.attachments.map((a) => a.filename),
      },
    });

    // resume_guard: resume from the first decided approval this conversation waits on.
    const guard = await resumeGuard(deps, context, conversationId, executionId);
    if (guard.status === 'approval_missing') {
      await nodeDone('resume_guard', 'approval_missing', { detail: { approval_id: guard.approvalId } });
    } else if (guard.status === 'pending') {
      systemParts.push(
        `Reviewer decision on approval ${guard.approvalId} (${guard.checkpointType}): pending. Do not file or submit until it is decided.`,
      );
      await nodeDone('resume_guard', 'pending', {
        detail: { approval_id: guard.approvalId, checkpoint_type: guard.checkpointType, decision: null },
      });
    } else if (guard.status === 'resumed') {
      consumed = guard;
      const d = guard.decision;
      systemParts.push(
        `Reviewer decision on approval ${guard.approvalId} (${guard.checkpointType}): ${d.decision}.` +
          (d.comments ? ` Comments: ${d.comments}.` : '') +
          (d.modifications ? ` Modifications to apply: ${JSON.stringify(d.modifications)}.` : ''),
      );
      await nodeDone('resume_guard', 'resumed', {
        detail: {
          approval_id: guard.approvalId,
          checkpoint_type: guard.checkpointType,
          decision: d.decision,
          reviewer_id: d.reviewerId,
          comments: d.comments,
          modifications: d.modifications,
          decided_at: d.decidedAt,
        },
      });
    } else {
      await nodeDone('resume_guard', 'nothing_to_resume');
    }

    // initial_llm_call ↔ tool_node.
    const registry = await deps.agentTools.list(caller, (err) =>
      deps.logger.warn({ err, executionId }, 'a tool provider failed; its tools are left out of this turn'),
    );
    // What the turn's own tools did during the current tool call.
    let skillsOfCall: SkillDefinition[] = [];
    const hooks = {
      skillLoaded: (skill: SkillDefinition) => void skillsOfCall.push(skill),
      approvalAsked: (ask: ApprovalAsk) => (approvalAsk = ask),
    };
    const prepareFiling: PrepareFiling = async (filing) => ({
      ...(await filingPayload(deps, tenantId, filing, { conversationId, executionId })),
    });
    const own = [loadSkillTool(skills, hooks), requestApprovalTool(hooks, prepareFiling), platformHelpTool];
    const tools = new Map<string, AgentTool>();
    for (const t of [...own, ...registry]) if (agentAllows(agent, t.name) && !tools.has(t.name)) tools.set(t.name, t);
    const modelTools = [...tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: toolInputSchema(t.parameters),
    }));
    const contextWindow = Number(MODEL_OPTIONS.find((m) => m.id === settings.model)?.context_window ?? 128000);

    let finalText = '';
    for (let round = 0; ; round++) {
      const lastRound = round >= MAX_TOOL_ROUNDS;
      const system = systemParts.join('\n\n');
      const promptTokens =
        countTokens(system) +
        countTokens(
          messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n'),
        );
      if (promptTokens > contextWindow)
        throw new TurnStopped(
          `the conversation (${promptTokens} tokens) exceeds the model's context window of ${contextWindow}`,
        );
      const remaining = settings.maxTokensPerExecution === null ? null : settings.maxTokensPerExecution - budgetTokens;
      let reply: ModelReply;
      let fallbackUsed = false;
      const callStarted = performance.now();
      try {
        reply = await writes.whileWaiting(
          callModel(models, settings.model, {
            system,
            messages,
            tools: lastRound ? [] : modelTools,
            thinkingMode: settings.thinkingMode,
            maxOutputTokens: remaining === null ? undefined : Math.max(1, Math.min(remaining, 8192)),
            signal: deadline.signal,
          }),
        );
        modelUsed = settings.model;
      } catch (primaryError) {
        if (!settings.fallbackModel || deadline.signal.aborted) throw primaryError;
        deps.logger.warn(
          { err: primaryError, executionId, model: settings.model, fallback: settings.fallbackModel },
          'model call failed; retrying once on the fallback model',
        );
        reply = await writes.whileWaiting(
          callModel(models, settings.fallbackModel, {
            system,
            messages,
            tools: lastRound ? [] : modelTools,
            thinkingMode: settings.thinkingMode,
            maxOutputTokens: remaining === null ? undefined : Math.max(1, Math.min(remaining, 8192)),
            signal: deadline.signal,
          }),
        );
        modelUsed = settings.fallbackModel;
        fallbackUsed = true;
      }
      const known = reply.inputTokens !== null && reply.outputTokens !== null;
      const callTokens = known ? reply.inputTokens! + reply.outputTokens! : null;
      if (known) {
        anyUsageKnown = true;
        knownTokens += callTokens!;
        inputTokens = (inputTokens ?? 0) + reply.inputTokens!;
        outputTokens = (outputTokens ?? 0) + reply.outputTokens!;
        const callCost = costOf(modelUsed, reply.inputTokens, reply.outputTokens);
        if (callCost !== null) cost = (cost ?? 0) + callCost;
      }
      // Budgets count an unreported call by our own tokenizer, so an unknown usage cannot run unbounded.
      budgetTokens += callTokens ?? promptTokens + countTokens(reply.text + JSON.stringify(reply.toolCalls));
      const toolCalls: TurnToolCall[] = reply.toolCalls.map((c) => ({
        id: c.toolCallId,
        name: c.toolName,
        args: c.input,
      }));
      const message: NodeMessage = { role: 'assistant', content: reply.text, toolCalls };
      produced.push({
        role: 'assistant',
        content: reply.text,
        tool_calls: toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
      });
      await nodeDone('initial_llm_call', 'ok', {
        tokensUsed: callTokens,
        message,
        detail: {
          model: modelUsed,
          fallback_used: fallbackUsed,
          round,
          duration_ms: Math.round((performance.now() - callStarted) * 100) / 100,
        },
      });

      if (settings.maxTokensPerExecution !== null && budgetTokens > settings.maxTokensPerExecution)
        throw new TurnStopped(`token budget exceeded: ${budgetTokens} of ${settings.maxTokensPerExecution} tokens`);
      if (settings.maxCostUsdPerExecution !== null && cost !== null && cost > settings.maxCostUsdPerExecution)
        throw new TurnStopped(`cost budget exceeded: $${cost.toFixed(4)} of $${settings.maxCostUsdPerExecution}`);
      if (toolCalls.length === 0) {
        finalText = reply.text;
        break;
      }

      // tool_node: run each call, persist its row (rich output in metadata.tool_result).
      const loadedNow: string[] = [];
      const results: Array<{ id: string; name: string; ok: boolean; content: string }> = [];
      for (const call of toolCalls) {
        const events: ProgressEvent[] = [
          { type: 'ToolCalled', data: { toolCallId: call.id, toolName: call.name, args: call.args } },
        ];
        const tool = tools.get(call.name);
        let content: string;
        let rich: unknown;
        let error: string | null = null;
        try {
          if (!tool) throw new Error(`no tool named ${call.name} is available to this agent`);
          const parsed = tool.parameters.safeParse(call.args);
          if (!parsed.success)
            throw new Error(
              `invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(args)'} ${i.message}`).join('; ')}`,
            );
          record(events.splice(0));
          skillsOfCall = [];
          const output = await writes.whileWaiting(tool.run(parsed.data, caller));
          content = truncateToTokens(output.content, TOOL_CONTENT_TOKENS).text;
          rich = output.result;
          for (const skill of skillsOfCall) {
            if (!skillsInjected.includes(skill.key)) skillsInjected.push(skill.key);
            loadedNow.push(skill.key);
            events.push({ type: 'SkillLoaded', data: { skillKey: skill.key, name: skill.name } });
          }
          for (const e of entitiesOf(rich)) if (!referenced.has(e.entityId)) referenced.set(e.entityId, e);
        } catch (err) {
          if (deadline.signal.aborted) throw err;
          error = err instanceof Error ? err.message : String(err);
          content = `Error: ${error}`;
        }
        events.push({
          type: 'ToolReturned',
          data: {
            toolCallId: call.id,
            toolName: call.name,
            ok: error === null,
            content: truncateToTokens(content, 1000).text,
            error,
          },
        });
        record(events);
        append('tool', content, {
          key: `tool-${call.id}-${round}`,
          toolName: call.name,
          metadata: {
            tool_call_id: call.id,
            args: call.args,
            ...(rich !== undefined ? { tool_result: rich } : {}),
            ...(error ? { error } : {}),
          },
        });
        produced.push({ role: 'tool', content, tool_calls: [] });
        results.push({ id: call.id, name: call.name, ok: error === null, content });
      }
      // The provider's own assistant message keeps its reasoning parts (thinking blocks and their signatures).
      messages.push(
        reply.assistantMessage ?? {
          role: 'assistant',
          content: [
            ...(reply.text ? [{ type: 'text' as const, text: reply.text }] : []),
            ...toolCalls.map((c) => ({
              type: 'tool-call' as const,
              toolCallId: c.id,
              toolName: c.name,
              input: c.args,
            })),
          ],
        },
      );
      messages.push({
        role: 'tool',
        content: results.map((r) => ({
          type: 'tool-result' as const,
          toolCallId: r.id,
          toolName: r.name,
          output: { type: 'text' as const, value: r.content },
        })),
      });
      await nodeDone('tool_node', results.every((r) => r.ok) ? 'ok' : 'partial', {
        message: {
          role: 'tool',
          content: results.map((r) => `${r.name}: ${r.ok ? 'ok' : r.content}`).join('\n'),
          toolCalls: [],
        },
        skillsLoaded: loadedNow.length > 0 ? loadedNow : null,
        detail: { tools: results.map((r) => ({ id: r.id, name: r.name, ok: r.ok })) },
      });
    }

    // approval_node: a checkpoint the model asked for opens an approval and pauses the turn;
    // while the conversation already waits on one for the same request, the turn pauses on it.
    const ask = approvalAsk as ApprovalAsk | null;
    // The approval and the conversation's wait come after every row the turn wrote so far.
    if (ask) await writes.flush();
    const open = ask ? await openApprovalFor(deps, context, conversationId, ask.checkpointType) : null;
    if (ask && open) {
      approval = { id: open.approvalId, checkpointType: open.checkpointType };
      await nodeDone('approval_node', 'awaiting_hitl', {
        detail: { approval_id: open.approvalId, checkpoint_type: open.checkpointType, already_open: true },
      });
    } else if (ask) {
      const receipt = await requestApproval(
        deps,
        { ...context },
        {
          approvalId: derivedUuid('agents.approval', tenantId, executionId),
          conversationId,
          agentType: request.agentType,
          checkpointType: ask.checkpointType,
          payload: { ...ask.payload, conversation_id: conversationId, execution_id: executionId },
        },
      );
      approval = { id: receipt.approval_id, checkpointType: receipt.checkpoint_type };
      await awaitApproval(deps, context, conversationId, {
        type: 'AwaitApproval',
        approvalId: receipt.approval_id,
        executionId,
        checkpointType: receipt.checkpoint_type,
      });
      await nodeDone('approval_node', 'awaiting_hitl', {
        detail: { approval_id: receipt.approval_id, checkpoint_type: receipt.checkpoint_type },
      });
    } else {
      await nodeDone('approval_node', 'not_required');
    }

    // output_format: the assistant's answer joins the conversation.
    append('assistant', finalText, { key: 'answer', metadata: approval ? { hitl_approval_id: approval.id } : {} });
    await nodeDone('output_format', 'ok', {
      tokensUsed: countTokens(finalText),
      message: { role: 'assistant', content: finalText, toolCalls: [] },
    });
    await writes.settled();
    return await finish(outcome(approval ? 'awaiting_hitl' : 'completed', null));
  } catch (err) {
    if (err instanceof TurnEndNotRecorded) throw err;
    const message =
      err instanceof TurnStopped
        ? err.message
        : deadline.signal.aborted
          ? 'the turn took longer than its deadline'
          : `model or pipeline failure: ${err instanceof Error ? err.message : String(err)}`;
    if (!(err instanceof TurnStopped)) deps.logger.warn({ err, executionId }, 'agent turn failed');
    if (consumed) {
      const { approvalId, checkpointType, decision } = consumed;
      const release = { type: 'ReleaseApprovalDecision' as const, approvalId, checkpointType, executionId, decision };
      await releaseApprovalDecision(deps, context, conversationId, release).catch((error) =>
        deps.logger.error(
          { err: error, executionId, approvalId },
          'the decision this failed turn consumed was not given back',
        ),
      );
    }
    return finish(outcome('error', message));
  }
}

/** `result.entities` of a tool's rich output: `{entity_id, name, entity_type}` items. */
function entitiesOf(result: unknown): ReferencedEntity[] {
  const list = (result as { entities?: unknown } | undefined)?.entities;
  if (!Array.isArray(list)) return [];
  return list.flatMap((e) =>
    e && typeof e === 'object' && typeof (e as any).entity_id === 'string'
      ? [
          {
            entityId: (e as any).entity_id,
            name: String((e as any).name ?? (e as any).entity_id),
            entityType: String((e as any).entity_type ?? 'unknown'),
          },
        ]
      : [],
  );
}
