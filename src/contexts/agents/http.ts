import { type Request, type Response, Router } from 'express';
import type { PlatformDeps } from '../../platform/context-module';
import { DomainError, Forbidden, NotFound } from '../../platform/domain-errors';
import { idempotencyKeyOf } from '../../platform/http/command-context';
import { requireIdentity } from '../../platform/http/identity';
import { declareRoutes } from '../../platform/http/route';
import { lastEventIdOf, openSse } from '../../platform/http/sse';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { newId } from '../../platform/command-handling/idempotency';
import { requirePermission } from '../identity';
import { createModelRouter } from '../../platform/infra/llm/model-router';
import { complianceAssistant } from './assistant/compliance-assistant';
import { BUILTIN_SKILLS } from '../../../streams/agents/builtin-skills';
import { recentExecutionIds } from '../../../commands/agents/conversation-turns';
import { frameOf, parseFrameId } from './turn-frames';
import { resultOfTurn } from './turn-result';
import { promptsSystemPrompt, type SystemPromptResolver } from './system-prompt';
import { prepareTurn, type TurnEngine, type TurnRequest } from './turn-preparation';
import { runTurn } from './turn-runner';
import { DefineSkillBody, defineSkill } from '../../../commands/agents/define-skill';
import { retireSkill } from '../../../commands/agents/retire-skill';
import { effectiveSkills, skillView } from '../../../queries/agents/skills';
import { visibleConversation } from '../../../queries/conversations/conversations';
import { readTurnEvent, TERMINAL_TURN_EVENTS, turnAggregate } from '../../../streams/agents/turn';
import { AgentPathParams, ExecuteBody, SkillParams, StreamParams, StreamQuery } from './schemas';

function chatter(req: Request) {
  const identity = requireIdentity(req);
  if (!identity.permissions.includes('conversations.use')) throw new Forbidden('Missing permission: conversations.use');
  return identity;
}

export interface AgentsOptions {
  /** The system prompt of an agent type; default: the prompts context's `agents:<type>` template, else the built-in prompt. */
  resolveSystemPrompt?: SystemPromptResolver;
}

export function createAgentsApi(deps: PlatformDeps, options: AgentsOptions): Router {
  const engine: TurnEngine = {
    deps,
    models: createModelRouter(deps.config.llm, { assistant: complianceAssistant(deps.clock) }),
    resolveSystemPrompt: options.resolveSystemPrompt ?? promptsSystemPrompt(deps),
  };
  const router = Router();

  const execute = async (req: Request, res: Response) => {
    const identity = chatter(req);
    if (req.params.agent_id !== undefined) parseParams(req, AgentPathParams);
    const body = parseBody(req, ExecuteBody);
    const idempotencyKey = idempotencyKeyOf(req);
    const executionId = newId({ tenantId: identity.tenantId, idempotencyKey }, 'agents.execution');
    if (idempotencyKey) {
      const [first] = await deps.store.readStream(turnAggregate.stream(identity.tenantId, executionId), { limit: 1 });
      if (first) {
        const replay = await resultOfTurn(deps, identity.tenantId, executionId, deps.config.llm.turnTimeoutMs);
        if (replay) return void res.json(replay);
      }
    }
    const request: TurnRequest = {
      tenantId: identity.tenantId,
      userId: identity.userId,
      permissions: identity.permissions,
      conversationId: body.conversation_id,
      message: body.message,
      agentType: body.agent_type,
      agentId: body.agent_id,
      model: body.model,
      systemPrompt: body.system_prompt,
      maxTokens: body.max_tokens,
      maxCostUsd: body.max_cost_usd,
      thinkingMode: body.thinking_mode,
      attachmentIds: body.attachment_ids,
      metadata: body.metadata,
      executionId,
      correlationId: req.id as string | undefined,
    };
    // The turn runs to its end even if the client goes away meanwhile.
    const prepared = await prepareTurn(engine, request);
    res.json(await runTurn(engine, prepared));
  };
  // A custom body: a retried request (same Idempotency-Key) answers from the first turn's
  // result, read from its stream, before any command runs; the turn is prepared and run here.
  router.post('/execute', execute);
  router.post('/agents/:agent_id/execute', execute);

  // A custom body: a server-sent event stream that starts or resumes a turn and follows it live.
  router.get('/conversations/:id/stream', async (req, res) => {
    const identity = chatter(req);
    const { id } = parseParams(req, StreamParams);
    const query = parseQuery(req, StreamQuery);
    await visibleConversation(deps.knex, identity.tenantId, id, identity.userId);

    // A reconnect names the last frame it saw; it resumes that turn even when the URL still
    // carries the `message` that started it (a browser EventSource reconnects to the same URL).
    let executionId: string | null = null;
    let after: bigint | null = null;
    const lastEventId = lastEventIdOf(req);
    // The client saw a turn refused before it began: reconnecting must not try again (204 stops an EventSource).
    if (lastEventId?.endsWith(':rejected')) return void res.status(204).end();
    const resume = parseFrameId(lastEventId);
    if (resume) {
      const [started] = await deps.store.readStream(turnAggregate.stream(identity.tenantId, resume.executionId), {
        limit: 1,
      });
      if (
        started &&
        readTurnEvent(started).type === 'TurnStarted' &&
        (started.data as { conversationId: string }).conversationId === id
      ) {
        executionId = resume.executionId;
        after = resume.revision;
        const [last] = await deps.store.readStream(turnAggregate.stream(identity.tenantId, executionId), {
          direction: 'backwards',
          limit: 1,
        });
        // Everything up to the terminal frame was seen: 204 tells an EventSource not to reconnect.
        if (last && (TERMINAL_TURN_EVENTS as readonly string[]).includes(last.type) && last.revision <= after)
          return void res.status(204).end();
      }
    }

    if (executionId === null && query.message === undefined) {
      const [latest] = await recentExecutionIds(deps.store, identity.tenantId, id);
      if (!latest) throw new NotFound('No turn to attach to in this conversation');
      executionId = latest;
    }

    const sse = openSse(req, res);
    if (executionId === null) {
      executionId = newId({ tenantId: identity.tenantId, idempotencyKey: idempotencyKeyOf(req) }, 'agents.execution');
      try {
        const prepared = await prepareTurn(engine, {
          tenantId: identity.tenantId,
          userId: identity.userId,
          permissions: identity.permissions,
          conversationId: id,
          message: query.message!,
          agentType: query.agent_type,
          agentId: query.agent_id,
          model: query.model,
          thinkingMode: query.thinking_mode,
          attachmentIds: query.attachment_ids,
          executionId,
          correlationId: req.id as string | undefined,
        });
        void runTurn(engine, prepared).catch((err) => deps.logger.error({ err, executionId }, 'turn runner crashed'));
      } catch (err) {
        // Refused before the turn began (daily cap, foreign attachment, unknown model): a terminal error frame.
        if (!(err instanceof DomainError)) deps.logger.error({ err, executionId }, 'turn could not start');
        const message = err instanceof DomainError ? err.message : 'the turn could not start';
        sse.send({
          id: `${executionId}:rejected`,
          event: 'error',
          data: { event: 'error', node: 'error', data: { execution_id: executionId, status: 'error', error: message } },
        });
        return sse.end();
      }
    }

    const turnId = executionId;
    try {
      for await (const recorded of deps.streamTail.follow(
        turnAggregate.stream(identity.tenantId, turnId),
        after,
        sse.closed,
      )) {
        const frame = frameOf(turnId, recorded);
        if (!frame) continue;
        sse.send({ id: frame.id, event: frame.event, data: frame.data });
        if (frame.terminal) break;
      }
    } catch (err) {
      deps.logger.warn({ err, executionId: turnId }, 'SSE follow ended with an error');
    }
    sse.end();
  });

  const route = declareRoutes(router, deps, requirePermission);
  const skillOf = async (tenantId: string, key: string) => {
    const skill = (await effectiveSkills(deps.knex, tenantId)).find((s) => s.key === key);
    if (!skill) throw new NotFound(`skill ${key} not found`);
    return skillView(skill);
  };

  route.get('/skills', {
    read: ({ identity }) => effectiveSkills(deps.knex, identity.tenantId),
    respond: (skills) => ({ skills: skills.map(skillView), total: skills.length }),
  });
  route.get('/skills/:key', {
    params: SkillParams,
    read: ({ identity, params }) => skillOf(identity.tenantId, params.key),
  });
  route.put('/skills/:key', {
    permission: 'skills.author',
    params: SkillParams,
    body: DefineSkillBody,
    command: ({ context, params, body }) => defineSkill(deps, context, params.key, body),
    respond: (_, { context, params }) => skillOf(context.tenantId, params.key),
  });
  route.delete('/skills/:key', {
    permission: 'skills.author',
    params: SkillParams,
    command: ({ context, params }) =>
      retireSkill(
        deps,
        context,
        params.key,
        BUILTIN_SKILLS.some((s) => s.key === params.key),
      ),
    respond: (_, { params }) => ({ key: params.key, status: 'retired' }),
  });

  return router;
}
