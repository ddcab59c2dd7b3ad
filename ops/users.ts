import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { createToolRegistry } from '../src/platform/agent-tools';
import { createStreamTail } from '../src/platform/subscriptions/stream-tail';
import { inviteUser } from '../commands/identity/invite-user';
import { registerUser } from '../commands/identity/register-user';
import { rotatePassword } from '../commands/identity/rotate-password';
import { updateUser } from '../commands/identity/update-user';
import { findTenant } from '../queries/identity/tenants';
import { findUserByEmail, type UserRow } from '../queries/identity/user-directory';
import { identityContext } from '../src/contexts/identity/module';
import type { PlatformDeps } from '../src/platform/context-module';
import { createMemoryCache } from '../src/platform/infra/cache';
import { identityDeps, type IdentityDeps } from '../commands/identity/identity-deps';
import { ensureDefaultTenant } from '../src/contexts/identity/bootstrap';
import { passwordTooLong } from '../commands/identity/passwords';
import { createAdvisoryLeaderLock } from '../src/platform/projection-runner/leader-lock';
import { ReactorRunner } from '../src/platform/reactors/runner';
import { ROLES, type Role } from '../streams/identity/permissions';
import { SYSTEM_USER_ID } from '../streams/identity/system-accounts';
import { DEFAULT_TENANT_ID } from '../streams/identity/tenant';
import { withOfflineProjections } from './offline';
import { createPlatformMetrics } from '../src/platform/observability/metrics';

/**
 * The operator's identity commands: the same commands and events as the API,
 * attributed to the system account. The identity read models are brought up to date
 * first (or, with a running platform, followed through its checkpoints).
 */
export async function withIdentity<T>(work: (deps: IdentityDeps) => Promise<T>): Promise<T> {
  return withOfflineProjections(
    identityContext.projectors ?? [],
    async ({ config, logger, infrastructure, runner, handle }) => {
      const platform: PlatformDeps = {
        config,
        logger,
        knex: infrastructure.db.knex,
        store: infrastructure.store,
        handle,
        projections: runner,
        // The identity commands trigger no reaction of their own; the platform's leader runs them.
        reactors: new ReactorRunner({
          knex: infrastructure.db.knex,
          store: infrastructure.store,
          reactors: [],
          deps: () => platform,
          logger,
          leaderLock: createAdvisoryLeaderLock(infrastructure.db.url),
        }),
        // A one-shot command: its registry is never scraped.
        metrics: createPlatformMetrics({ defaultMetrics: false }),
        cache: createMemoryCache(),
        agentTools: createToolRegistry(),
        streamTail: createStreamTail(infrastructure.store, logger),
        contexts: [identityContext],
        clock: () => new Date(),
      };
      const deps = identityDeps(platform);
      // Any order on a fresh database: the default tenant and system accounts a first start would create.
      await ensureDefaultTenant(deps);
      return await work(deps);
    },
  );
}

const actor = { actorId: SYSTEM_USER_ID };

function parseRoles(text: string): Role[] {
  const roles = text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const unknown = roles.filter((r) => !(ROLES as readonly string[]).includes(r));
  if (unknown.length) throw new Error(`unknown role(s): ${unknown.join(', ')} (known: ${ROLES.join(', ')})`);
  return roles as Role[];
}

/** A password from --password, else OPS_PASSWORD, else a generated one printed once. */
function choosePassword(given: string | undefined): { password: string; generated: boolean } {
  const password = given ?? process.env.OPS_PASSWORD;
  if (password !== undefined) {
    if (password.length < 8) throw new Error('password must be at least 8 characters');
    if (passwordTooLong(password)) throw new Error('password must be at most 72 bytes (bcrypt would truncate it)');
    return { password, generated: false };
  }
  return { password: randomBytes(18).toString('base64url'), generated: true };
}

async function userByEmail(deps: IdentityDeps, email: string): Promise<UserRow> {
  const row = await findUserByEmail(deps.knex, email);
  if (!row) throw new Error(`no user with e-mail ${email}`);
  return row;
}

export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('create users, rotate passwords, deactivate and reactivate');

  users
    .command('create')
    .description('create an active user with a password (or, with --invite, an invited user and its invite URL)')
    .requiredOption('--email <email>')
    .option('--roles <roles>', `comma-separated: ${ROLES.join(', ')}`, '')
    .option('--name <display name>')
    .option('--tenant <tenant id>', 'tenant uuid', DEFAULT_TENANT_ID)
    .option('--password <password>', 'else OPS_PASSWORD, else one is generated and printed once')
    .option('--invite', 'create an invited user and print the invite URL instead')
    .action(
      async (o: {
        email: string;
        roles: string;
        name?: string;
        tenant: string;
        password?: string;
        invite?: boolean;
      }) => {
        const roles = parseRoles(o.roles);
        await withIdentity(async (deps) => {
          if (!(await findTenant(deps.knex, o.tenant)))
            throw new Error(`no tenant ${o.tenant} (see: ops tenants list)`);
          if (o.invite) {
            const { userId, token } = await inviteUser(
              deps,
              { email: o.email, display_name: o.name ?? null, roles },
              { ...actor, tenantId: o.tenant },
            );
            console.log(
              `invited ${o.email} (${userId}); share this URL once: ${deps.config.http.publicBaseUrl}/invite?token=${token}`,
            );
            return;
          }
          const { password, generated } = choosePassword(o.password);
          const { userId } = await registerUser(
            deps,
            { tenantId: o.tenant, email: o.email, displayName: o.name ?? null, roles, password },
            actor,
          );
          console.log(
            `created ${o.email.toLowerCase()} (${userId}) with roles [${roles.join(', ')}] in tenant ${o.tenant}${generated ? `; generated password (shown once): ${password}` : ''}`,
          );
        });
      },
    );

  users
    .command('rotate-password <email>')
    .description('set a new password; every live session of the user ends')
    .option('--password <password>', 'else OPS_PASSWORD, else one is generated and printed once')
    .action(async (email: string, o: { password?: string }) => {
      await withIdentity(async (deps) => {
        const user = await userByEmail(deps, email);
        const { password, generated } = choosePassword(o.password);
        await rotatePassword(deps, user.id, password, { ...actor, tenantId: user.tenant_id });
        console.log(
          `password of ${user.email} rotated; its sessions are revoked${generated ? `; generated password (shown once): ${password}` : ''}`,
        );
      });
    });

  for (const [name, isActive] of [
    ['deactivate', false],
    ['reactivate', true],
  ] as const) {
    users
      .command(`${name} <email>`)
      .description(
        isActive
          ? 'let a disabled user log in again'
          : 'disable a user and end their sessions (not the last active admin)',
      )
      .action(async (email: string) => {
        await withIdentity(async (deps) => {
          const user = await userByEmail(deps, email);
          const { events } = await updateUser(deps, user.id, { isActive }, { ...actor, tenantId: user.tenant_id });
          console.log(
            events.length ? `${user.email} ${name}d` : `${user.email} was already ${isActive ? 'active' : 'disabled'}`,
          );
        });
      });
  }
}
