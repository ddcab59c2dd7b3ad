import type { Projector } from '../../src/platform/projection-runner/projector';
import { ONETIME_TOKEN_EVENT_TYPES, type OneTimeTokenEvent } from '../../streams/identity/onetime-token';

/** Invite and reset tokens by hash, for GET /auth/invites/{token}. */
export const ONETIME_TOKENS_TABLE = 'identity_onetime_tokens';

export const onetimeTokensProjector: Projector = {
  name: 'identity_onetime_tokens',
  consistency: 'inline',
  version: 1,
  tables: [ONETIME_TOKENS_TABLE],
  eventTypes: ONETIME_TOKEN_EVENT_TYPES,
  async createTables(knex) {
    await knex.schema.createTable(ONETIME_TOKENS_TABLE, (t) => {
      t.text('token_hash').primary();
      t.text('tenant_id').notNullable();
      t.uuid('user_id').notNullable().index();
      t.text('purpose').notNullable();
      t.text('status').notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable();
    });
  },
  async apply(trx, recorded) {
    const event = { type: recorded.type, data: recorded.data } as OneTimeTokenEvent;
    switch (event.type) {
      case 'OneTimeTokenIssued': {
        const { tokenHash, purpose, tenantId, userId, expiresAt } = event.data;
        await trx(ONETIME_TOKENS_TABLE)
          .insert({
            token_hash: tokenHash,
            tenant_id: tenantId,
            user_id: userId,
            purpose,
            status: 'open',
            expires_at: expiresAt,
          })
          .onConflict('token_hash')
          .ignore();
        return;
      }
      case 'OneTimeTokenRedeemed':
        return void (await trx(ONETIME_TOKENS_TABLE)
          .where({ token_hash: event.data.tokenHash })
          .update({ status: 'redeemed' }));
      case 'OneTimeTokenVoided':
        return void (await trx(ONETIME_TOKENS_TABLE)
          .where({ token_hash: event.data.tokenHash })
          .update({ status: 'voided' }));
    }
  },
};
