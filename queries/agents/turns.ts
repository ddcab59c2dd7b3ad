import type { Knex } from 'knex';
import { AGENT_TABLES } from '../../projections/agents/agents-read-model';

export interface TurnRow {
  execution_id: string;
  conversation_id: string;
  user_id: string;
  status: 'running' | 'completed' | 'awaiting_hitl' | 'error';
  approval_id: string | null;
  checkpoint_type: string | null;
}

const COLUMNS = ['execution_id', 'conversation_id', 'user_id', 'status', 'approval_id', 'checkpoint_type'];

/** The conversation's most recent turns, newest first (attach without `message`, the resume guard). */
export async function latestTurns(knex: Knex, tenantId: string, conversationId: string, limit = 1): Promise<TurnRow[]> {
  return knex(AGENT_TABLES.turns)
    .where({ tenant_id: tenantId, conversation_id: conversationId })
    .orderBy('started_seq', 'desc')
    .limit(limit)
    .select(COLUMNS);
}

export async function findTurn(knex: Knex, tenantId: string, executionId: string): Promise<TurnRow | undefined> {
  return knex(AGENT_TABLES.turns).where({ tenant_id: tenantId, execution_id: executionId }).first(COLUMNS);
}
