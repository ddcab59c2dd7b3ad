import type { Projector } from '../../src/platform/projection-runner/projector';
import { USER_EVENT_TYPES, type UserEvent } from '../../streams/identity/user';

/**
 * The user directory: one row per account, everything the gateway's resolve step, login,
 * the admin directory and the tenant directory read. Built from user events alone; the
 * password hash itself stays in the secret store (`password_ref` names it).
 */
export const USERS_TABLE = 'identity_users';

const userIdOf = (stream: string) => stream.slice(-36);

export const userDirectoryProjector: Projector = {
  name: 'identity_user_directory',
  consistency: 'inline',
  version: 1,
  tables: [USERS_TABLE],
  eventTypes: USER_EVENT_TYPES,
  async createTables(knex) {
    await knex.schema.createTable(USERS_TABLE, (t) => {
      t.uuid('id').primary();
      t.text('tenant_id').notNullable();
      t.text('email').notNullable();
      t.text('display_name');
      t.jsonb('roles').notNullable();
      t.text('status').notNullable();
      t.text('kind').notNullable();
      t.integer('token_version').notNullable().defaultTo(0);
      t.text('password_ref');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['email']);
      t.index(['tenant_id', 'kind']);
    });
  },
  async apply(trx, recorded) {
    const event = { type: recorded.type, data: recorded.data } as UserEvent;
    const id = userIdOf(recorded.stream);
    const at = recorded.recordedAt;
    const update = (fields: Record<string, unknown>) =>
      trx(USERS_TABLE)
        .where({ id })
        .update({ ...fields, updated_at: at });
    switch (event.type) {
      case 'UserInvited':
      case 'UserRegistered': {
        const { userId, email, displayName, roles } = event.data;
        const status = event.type === 'UserInvited' ? 'invited' : 'active';
        const kind = event.type === 'UserRegistered' ? event.data.kind : 'person';
        await trx(USERS_TABLE)
          .insert({
            id: userId,
            tenant_id: recorded.metadata.tenantId,
            email,
            display_name: displayName,
            roles: JSON.stringify(roles),
            status,
            kind,
            created_at: at,
            updated_at: at,
          })
          .onConflict('id')
          .ignore();
        return;
      }
      case 'InviteAccepted':
      case 'UserReactivated':
        return void (await update({ status: 'active' }));
      case 'UserDeactivated':
        return void (await update({ status: 'disabled' }));
      case 'PasswordSet':
        return void (await update({ password_ref: event.data.passwordRef }));
      case 'DisplayNameChanged':
        return void (await update({ display_name: event.data.displayName }));
      case 'RolesChanged':
        return void (await update({ roles: JSON.stringify(event.data.roles) }));
      case 'TokenVersionBumped':
        return void (await update({ token_version: event.data.tokenVersion }));
      default:
        return;
    }
  },
};
