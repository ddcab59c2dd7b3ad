import { z, type ApiDescription } from '../../platform/openapi/describe';
import { DefineSkillBody } from '../../../commands/agents/define-skill';
import { AgentPathParams, ExecuteBody, SkillParams, StreamParams, StreamQuery } from './schemas';

/**
 * Agents in the API contract. Request schemas are the router's own; response
 * bodies are described as open objects with the fields known to be there (a first
 * pass: the agents' owners tighten them here).
 */
const Obj = z.record(z.unknown());
const Turn = z
  .object({ execution_id: z.string().optional(), status: z.string().optional() })
  .passthrough()
  .openapi('AgentTurnResult');
const Skill = z.object({ key: z.string() }).passthrough().openapi('Skill');
const frame = z.object({ event: z.string(), node: z.string(), data: Obj });

export const agentsApi: ApiDescription = {
  tag: 'agents',
  public: () => [
    {
      method: 'post',
      path: '/execute',
      summary: 'Run one agent turn on a conversation (blocking; the result of the turn)',
      body: ExecuteBody,
      responses: { 200: Turn },
      errors: [402],
    },
    {
      method: 'post',
      path: '/agents/:agent_id/execute',
      summary: 'Run one agent turn with the agent named in the path',
      params: AgentPathParams,
      body: ExecuteBody,
      responses: { 200: Turn },
      errors: [402],
    },
    {
      method: 'get',
      path: '/conversations/:id/stream',
      summary: 'Start (with `message`) or follow a turn as server-sent events; resumable with Last-Event-ID',
      params: StreamParams,
      query: StreamQuery,
      responses: { 200: { events: { node_end: frame, done: frame, error: frame } }, 204: null },
      errors: [402],
    },
    {
      method: 'get',
      path: '/skills',
      summary: 'Skills available to agents',
      responses: { 200: z.object({ skills: z.array(Skill), total: z.number().int() }) },
    },
    { method: 'get', path: '/skills/:key', summary: 'One skill', params: SkillParams, responses: { 200: Skill } },
    {
      method: 'put',
      path: '/skills/:key',
      summary: 'Define or change a skill',
      params: SkillParams,
      body: DefineSkillBody,
      responses: { 200: Skill },
    },
    {
      method: 'delete',
      path: '/skills/:key',
      summary: 'Retire a skill',
      params: SkillParams,
      responses: { 200: z.object({ key: z.string(), status: z.literal('retired') }) },
    },
  ],
};
