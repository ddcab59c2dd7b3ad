import type { Knex } from 'knex';
import { ONETIME_TOKENS_TABLE } from '../../projections/identity/onetime-tokens';
import { USERS_TABLE } from '../../projections/identity/user-directory';

export interface OpenToken {
  token_hash: string;
  tenant_id: string;
  user_id: string;
  purpose: 'invite' | 'reset';
  expires_at: Date;
  email: string;
  display_name: string | null;
}

/** An unused, unexpired token; used, voided, expired and unknown ones all read as null. */
export async function findOpenToken(knex: Knex, tokenHash: string, now: Date): Promise<OpenToken | null> {
  const row = await knex(`${ONETIME_TOKENS_TABLE} as t`)
    .join(`${USERS_TABLE} as u`, 'u.id', 't.user_id')
    .select('t.token_hash', 't.tenant_id', 't.user_id', 't.purpose', 't.expires_at', 'u.email', 'u.display_name')
    .where('t.token_hash', tokenHash)
    .andWhere('t.status', 'open')
    .andWhere('t.expires_at', '>', now)
    .first();
  return row ?? null;
}
