import type { Knex } from 'knex';
import { AGENT_TABLES } from '../../projections/agents/agents-read-model';
import { TENANT_SETTINGS_TABLE } from '../../projections/settings/tenant-settings';

export interface TenantBudgetUse {
  tenantId: string;
  cap: 'tokens' | 'cost';
  ratio: number;
}

/**
 * Each capped tenant's settled usage on `day` (UTC) over its daily caps, one row per cap it
 * sets: what the "tenant near its daily budget" alert reads. Reservations of turns still
 * running are not in the read model, so the share can lag a running turn by its reservation.
 */
export async function tenantBudgetUse(knex: Knex, day: string): Promise<TenantBudgetUse[]> {
  const rows: Array<{
    tenant_id: string;
    tokens: string | number;
    cost: number;
    max_tokens_per_day: string | number | null;
    max_cost_usd_per_day: number | null;
  }> = await knex(`${AGENT_TABLES.usage} as u`)
    .join(`${TENANT_SETTINGS_TABLE} as s`, 's.tenant_id', 'u.tenant_id')
    .where('u.day', day)
    .andWhereRaw('(s.max_tokens_per_day IS NOT NULL OR s.max_cost_usd_per_day IS NOT NULL)')
    .groupBy('u.tenant_id', 's.max_tokens_per_day', 's.max_cost_usd_per_day')
    .select(
      'u.tenant_id',
      knex.raw('sum(u.tokens_used) AS tokens'),
      knex.raw('sum(u.cost_usd)::float8 AS cost'),
      's.max_tokens_per_day',
      's.max_cost_usd_per_day',
    );
  const uses: TenantBudgetUse[] = [];
  for (const row of rows) {
    const maxTokens = row.max_tokens_per_day === null ? null : Number(row.max_tokens_per_day);
    if (maxTokens !== null && maxTokens > 0)
      uses.push({ tenantId: row.tenant_id, cap: 'tokens', ratio: Number(row.tokens) / maxTokens });
    if (row.max_cost_usd_per_day !== null && row.max_cost_usd_per_day > 0)
      uses.push({ tenantId: row.tenant_id, cap: 'cost', ratio: Number(row.cost) / row.max_cost_usd_per_day });
  }
  return uses;
}
