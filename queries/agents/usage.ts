import type { Knex } from 'knex';
import { AGENT_TABLES } from '../../projections/agents/agents-read-model';

export interface DailyUsage {
  tokensUsed: number;
  costUsd: number;
}

/** What a tenant and one of its users have used on a UTC day (the daily caps' counters). */
export async function dailyUsage(
  knex: Knex,
  tenantId: string,
  userId: string,
  day: string,
): Promise<{ tenant: DailyUsage; user: DailyUsage }> {
  const rows: Array<{ user_id: string; tokens_used: string | number; cost_usd: number }> = await knex(
    AGENT_TABLES.usage,
  )
    .where({ tenant_id: tenantId, day })
    .select('user_id', 'tokens_used', 'cost_usd');
  const tenant = { tokensUsed: 0, costUsd: 0 };
  const user = { tokensUsed: 0, costUsd: 0 };
  for (const row of rows) {
    const tokens = Number(row.tokens_used);
    tenant.tokensUsed += tokens;
    tenant.costUsd += row.cost_usd;
    if (row.user_id === userId) {
      user.tokensUsed += tokens;
      user.costUsd += row.cost_usd;
    }
  }
  return { tenant, user };
}
