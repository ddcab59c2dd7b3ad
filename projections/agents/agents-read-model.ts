import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { readSkillEvent, SkillEventSchemas } from '../../streams/agents/skill';
import { readTurnEvent, type TurnEvent } from '../../streams/agents/turn';

/**
 * The agents context's read models: one row per turn (the latest turn of a conversation for
 * SSE readers and the resume guard), daily usage per tenant and user (the daily caps), and
 * the tenants' own skills.
 */
export const AGENT_TABLES = {
  turns: 'agents_turns',
  usage: 'agents_usage_daily',
  skills: 'agents_skills',
} as const;

const TURN_TYPES = ['TurnStarted', 'UsageRecorded', 'TurnCompleted', 'TurnPaused', 'TurnFailed'] as const;

async function applyTurnEvent(trx: Knex.Transaction, event: RecordedEvent): Promise<void> {
  const tenantId = event.metadata.tenantId;
  const parsed = readTurnEvent(event);
  switch (parsed.type) {
    case 'TurnStarted': {
      const d = parsed.data;
      await trx(AGENT_TABLES.turns)
        .insert({
          tenant_id: tenantId,
          execution_id: d.executionId,
          conversation_id: d.conversationId,
          user_id: d.userId,
          agent_type: d.agentType,
          model: d.model,
          status: 'running',
          started_at: d.startedAt,
          // Log order breaks ties between turns started in the same millisecond.
          started_seq: `${event.position.commit}`.padStart(20, '0') + `${event.position.prepare}`.padStart(20, '0'),
        })
        .onConflict(['tenant_id', 'execution_id'])
        .ignore();
      return;
    }
    case 'UsageRecorded':
      return recordUsage(trx, event, null);
    case 'TurnCompleted':
    case 'TurnPaused':
    case 'TurnFailed': {
      const { outcome, finishedAt } = parsed.data;
      await trx(AGENT_TABLES.turns)
        .where({ tenant_id: tenantId, execution_id: executionIdOf(event) })
        .update({
          status: outcome.status,
          finished_at: finishedAt,
          approval_id: outcome.hitlApprovalId,
          checkpoint_type: outcome.hitlCheckpointType,
          error: outcome.error,
        });
      return;
    }
    default:
      return;
  }
}

const ENDS = ['TurnCompleted', 'TurnPaused', 'TurnFailed'] as const;

/**
 * A turn's usage: its tokens and cost on the turn's row and added to the user's day, in one
 * statement; with the end that follows it in the same write (`end`), the row's outcome too.
 */
async function recordUsage(trx: Knex.Transaction, event: RecordedEvent, end: RecordedEvent | null): Promise<void> {
  const d = readTurnEvent(event).data as Extract<TurnEvent, { type: 'UsageRecorded' }>['data'];
  const ended = end ? (readTurnEvent(end).data as Extract<TurnEvent, { type: (typeof ENDS)[number] }>['data']) : null;
  const outcome = ended
    ? `, status = :status, finished_at = :finishedAt, approval_id = :approvalId, checkpoint_type = :checkpointType, error = :error`
    : '';
  await trx.raw(
    `WITH turn AS (
       UPDATE ${AGENT_TABLES.turns} SET tokens_used = :tokens, cost_usd = :cost${outcome}
        WHERE tenant_id = :tenantId AND execution_id = :executionId)
     INSERT INTO ${AGENT_TABLES.usage} (tenant_id, user_id, day, tokens_used, cost_usd, turns, unknown_usage_turns)
     VALUES (:tenantId, :userId, :day, :tokensCounted, :costCounted, 1, :unknown)
     ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET
       tokens_used = ${AGENT_TABLES.usage}.tokens_used + EXCLUDED.tokens_used,
       cost_usd = ${AGENT_TABLES.usage}.cost_usd + EXCLUDED.cost_usd,
       turns = ${AGENT_TABLES.usage}.turns + 1,
       unknown_usage_turns = ${AGENT_TABLES.usage}.unknown_usage_turns + EXCLUDED.unknown_usage_turns`,
    {
      tenantId: event.metadata.tenantId,
      executionId: executionIdOf(event),
      tokens: d.tokensUsed,
      cost: d.costUsd,
      userId: d.userId,
      day: d.day,
      tokensCounted: d.tokensUsed ?? 0,
      costCounted: d.costUsd ?? 0,
      unknown: d.tokensUsed === null ? 1 : 0,
      ...(ended
        ? {
            status: ended.outcome.status,
            finishedAt: ended.finishedAt,
            approvalId: ended.outcome.hitlApprovalId,
            checkpointType: ended.outcome.hitlCheckpointType,
            error: ended.outcome.error,
          }
        : {}),
    },
  );
}

/** `agents.turn-<tenant uuid>-<executionId>`: the execution id follows the 36-character tenant uuid. */
function executionIdOf(event: RecordedEvent): string {
  const prefix = `agents.turn-${event.metadata.tenantId}-`;
  if (!event.stream.startsWith(prefix)) throw new Error(`unexpected turn stream ${event.stream}`);
  return event.stream.slice(prefix.length);
}

async function applySkillEvent(trx: Knex.Transaction, event: RecordedEvent): Promise<void> {
  const tenantId = event.metadata.tenantId;
  const parsed = readSkillEvent(event);
  if (parsed.type === 'SkillDefined') {
    const d = parsed.data;
    const row = {
      tenant_id: tenantId,
      key: d.key,
      name: d.name,
      description: d.description,
      trigger_words: JSON.stringify(d.triggerWords),
      instructions: d.instructions,
      version: d.version,
      retired: false,
      updated_by: d.definedBy,
      updated_at: d.definedAt,
    };
    await trx(AGENT_TABLES.skills).insert(row).onConflict(['tenant_id', 'key']).merge();
  } else {
    const d = parsed.data;
    await trx(AGENT_TABLES.skills)
      .insert({
        tenant_id: tenantId,
        key: d.key,
        name: d.key,
        description: '',
        trigger_words: '[]',
        instructions: '',
        version: 0,
        retired: true,
        updated_by: d.retiredBy,
        updated_at: d.retiredAt,
      })
      .onConflict(['tenant_id', 'key'])
      .merge({ retired: true, updated_by: d.retiredBy, updated_at: d.retiredAt });
  }
}

export const agentsProjector: Projector = {
  name: 'agents',
  consistency: 'inline',
  version: 1,
  tables: [AGENT_TABLES.turns, AGENT_TABLES.usage, AGENT_TABLES.skills],
  eventTypes: [...TURN_TYPES, ...Object.keys(SkillEventSchemas)],
  async createTables(knex) {
    await knex.schema.createTable(AGENT_TABLES.turns, (t) => {
      t.text('tenant_id').notNullable();
      t.text('execution_id').notNullable();
      t.text('conversation_id').notNullable();
      t.text('user_id').notNullable();
      t.text('agent_type').notNullable();
      t.text('model').notNullable();
      t.text('status').notNullable();
      t.text('approval_id');
      t.text('checkpoint_type');
      t.text('error');
      t.bigInteger('tokens_used');
      t.double('cost_usd');
      t.timestamp('started_at', { useTz: true }).notNullable();
      t.text('started_seq').notNullable();
      t.timestamp('finished_at', { useTz: true });
      t.primary(['tenant_id', 'execution_id']);
      t.index(['tenant_id', 'conversation_id', 'started_seq']);
    });
    await knex.schema.createTable(AGENT_TABLES.usage, (t) => {
      t.text('tenant_id').notNullable();
      t.text('user_id').notNullable();
      t.date('day').notNullable();
      t.bigInteger('tokens_used').notNullable();
      t.double('cost_usd').notNullable();
      t.integer('turns').notNullable();
      /** Turns whose provider reported no usage: counted, but their tokens are unknown. */
      t.integer('unknown_usage_turns').notNullable();
      t.primary(['tenant_id', 'user_id', 'day']);
    });
    await knex.schema.createTable(AGENT_TABLES.skills, (t) => {
      t.text('tenant_id').notNullable();
      t.text('key').notNullable();
      t.text('name').notNullable();
      t.text('description').notNullable();
      t.jsonb('trigger_words').notNullable();
      t.text('instructions').notNullable();
      t.integer('version').notNullable();
      t.boolean('retired').notNullable();
      t.text('updated_by').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'key']);
    });
  },
  async apply(trx, event) {
    if (event.type in SkillEventSchemas) return applySkillEvent(trx, event);
    return applyTurnEvent(trx, event);
  },
  /** A turn's usage and the end written with it (a turn's last write) go in one statement. */
  async applyBatch(trx, events) {
    for (let i = 0; i < events.length; i++) {
      const event = events[i];
      const next = events[i + 1];
      if (
        event.type === 'UsageRecorded' &&
        next &&
        (ENDS as readonly string[]).includes(next.type) &&
        next.stream === event.stream
      ) {
        await recordUsage(trx, event, next);
        i++;
      } else await this.apply(trx, event);
    }
  },
};
