import { z, type ApiDescription } from '../../platform/openapi/describe';
import { DeadLetterParams, DeadLettersQuery, ScheduledParams } from './schemas';

/** The System page's routes in the API contract (docs/operations.md#the-system-page-and-its-api). */
const LaneState = z.enum(['subscription_down', 'dead_lettered', 'behind', 'running', 'caught_up']);

const Lane = z
  .object({
    name: z.string(),
    kind: z.enum(['projection', 'reactor', 'scheduler']),
    lag_events: z.number().int(),
    lag_seconds: z.number(),
    subscribed: z.boolean().nullable(),
    failures: z.number().int(),
    dead_letters: z.number().int(),
    state: LaneState,
  })
  .openapi('SystemLane');

const Leadership = z
  .object({
    name: z.enum(['projections', 'reactors', 'scheduler']),
    instance: z.string().nullable(),
    this_instance: z.boolean(),
  })
  .openapi('SystemLeadership');

const ParkedMessage = z
  .object({
    message_id: z.string(),
    tenant_id: z.string(),
    handler: z.string(),
    due_at: z.string(),
    attempts: z.number().int(),
    error: z.string(),
    dead_lettered_at: z.string(),
  })
  .openapi('ParkedScheduledMessage');

const Scheduled = z
  .object({
    due: z.number().int(),
    overdue: z.number().int(),
    retrying: z.number().int(),
    dead_lettered: z.number().int(),
    oldest_wait_s: z.number(),
    next: z.array(
      z.object({
        message_id: z.string(),
        tenant_id: z.string(),
        handler: z.string(),
        due_at: z.string(),
        attempts: z.number().int(),
      }),
    ),
    parked: z.array(ParkedMessage),
  })
  .openapi('SystemScheduled');

const System = z
  .object({
    instance: z.string(),
    lanes: z.array(Lane),
    leadership: z.array(Leadership),
    scheduled: Scheduled,
    lag_degraded_after_s: z.number(),
  })
  .openapi('SystemReport');

const DeadLetter = z
  .object({
    id: z.string(),
    lane: z.string(),
    kind: z.enum(['projection', 'reactor']),
    event_type: z.string(),
    event_id: z.string(),
    stream: z.string(),
    position: z.string(),
    error: z.string(),
    attempts: z.number().int(),
    created_at: z.string(),
    resolved_at: z.string().nullable(),
  })
  .openapi('DeadLetter');

export const systemApi: ApiDescription = {
  tag: 'system',
  public: () => [
    {
      method: 'get',
      path: '/admin/system',
      summary:
        "The processing runtime: every lane's lag and state, who leads each leadership, the scheduled messages (system.operate, operator tenant)",
      responses: { 200: System },
      errors: [503],
    },
    {
      method: 'get',
      path: '/admin/system/dead-letters',
      summary:
        'Unresolved dead letters of every projection and reactor lane, in log order (system.operate, operator tenant)',
      query: DeadLettersQuery,
      responses: { 200: z.object({ dead_letters: z.array(DeadLetter) }) },
      errors: [503],
    },
    {
      method: 'post',
      path: '/admin/system/dead-letters/:id/retry',
      summary:
        'Apply or react to one dead letter again; 404 unknown, 409 resolved already or still failing (nothing changes)',
      params: DeadLetterParams,
      responses: { 200: z.object({ dead_letter: DeadLetter }) },
      errors: [404, 409, 503],
    },
    {
      method: 'post',
      path: '/admin/system/scheduled/:tenant_id/:message_id/retry',
      summary:
        'Make a dead-lettered scheduled message due again (as ops schedule retry); 404 unknown, 409 not dead-lettered (nothing changes)',
      params: ScheduledParams,
      responses: { 200: z.object({ scheduled_message: ParkedMessage }) },
      errors: [404, 409, 503],
    },
  ],
};
