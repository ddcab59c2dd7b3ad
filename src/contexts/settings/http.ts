import { Router } from 'express';
import { deleteUserBudgetOverride } from '../../../commands/settings/delete-user-budget-override';
import {
  UpdateTenantSettingsBody,
  updateTenantSettings,
  updateTenantSettingsCommand,
} from '../../../commands/settings/update-tenant-settings';
import {
  UpsertUserBudgetOverrideBody,
  upsertUserBudgetOverride,
  upsertUserBudgetOverrideCommand,
} from '../../../commands/settings/upsert-user-budget-override';
import { listSettingsAudit } from '../../../queries/settings/audit-log';
import type { StoredUserOverride, TenantSettingsSnapshot } from '../../../queries/settings/tenant-settings';
import { findUserBudgetOverride, listUserBudgetOverrides } from '../../../queries/settings/user-budget-overrides';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound } from '../../platform/domain-errors';
import { declareRoutes } from '../../platform/http/route';
import { requirePermission } from '../identity';
import { effectiveTenantSettings, environmentDefaults } from './effective-settings';
import { SETTING_NAMES, type TenantSettingsValues, WIRE_NAMES } from '../../../streams/settings/fields';
import { MODEL_OPTIONS } from '../../platform/infra/llm/model-options';
import { invalidateTenantSettings, loadTenantSettings } from './settings-cache';
import { createTenantUserCheck } from './tenant-users';
import { AuditQuery, UserIdParams } from './schemas';

/** Tenant settings endpoints. Writes need `settings.manage` (admin). */

const MANAGE = 'settings.manage';

const wire = (values: TenantSettingsValues | Record<string, unknown>) => {
  const out: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) out[WIRE_NAMES[name]] = (values as Record<string, unknown>)[name];
  return out;
};

const overrideView = (o: StoredUserOverride) => ({
  user_id: o.userId,
  max_tokens_per_day: o.maxTokensPerDay,
  max_cost_usd_per_day: o.maxCostUsdPerDay,
  updated_by: o.updatedBy,
  updated_at: o.updatedAt,
});

/** GET /settings body: stored, effective (tenant → environment), sources, the caller's override. */
function settingsView(snapshot: TenantSettingsSnapshot, defaults: TenantSettingsValues, userId: string) {
  const { effective, sources } = effectiveTenantSettings(snapshot.stored.values, defaults);
  const own = snapshot.overrides[userId];
  return {
    tenant_id: snapshot.tenantId,
    settings: {
      ...wire(snapshot.stored.values),
      updated_by: snapshot.stored.updatedBy,
      updated_at: snapshot.stored.updatedAt,
    },
    effective: wire(effective),
    sources: wire(sources),
    user_override: own ? overrideView(own) : null,
  };
}

export function createSettingsApi(deps: PlatformDeps): Router {
  const { knex, config } = deps;
  const defaults = environmentDefaults(config);
  const assertUserInTenant = createTenantUserCheck(knex);
  const router = Router();

  const route = declareRoutes(router, deps, requirePermission);
  /** A write to the settings; the cached copy of the tenant's settings is dropped after it. */
  const forgetting = async <T>(tenantId: string, write: Promise<T>): Promise<T> => {
    const written = await write;
    await invalidateTenantSettings(deps, tenantId);
    return written;
  };
  const currentSettings = (_: unknown, { identity }: { identity: { tenantId: string; userId: string } }) =>
    loadTenantSettings(deps, identity.tenantId).then((snapshot) => settingsView(snapshot, defaults, identity.userId));

  route.get('/settings', { read: (input) => currentSettings(null, input) });

  route.put('/settings', {
    permission: MANAGE,
    body: UpdateTenantSettingsBody,
    command: ({ identity, body }) =>
      forgetting(
        identity.tenantId,
        updateTenantSettings(deps, identity.tenantId, updateTenantSettingsCommand(body, identity.userId)),
      ),
    respond: currentSettings,
  });

  route.get('/settings/model-options', { read: () => MODEL_OPTIONS });

  route.get('/settings/user-overrides', {
    permission: MANAGE,
    read: ({ identity }) => listUserBudgetOverrides(knex, identity.tenantId),
    respond: (overrides) => overrides.map(overrideView),
  });

  route.put('/settings/user-overrides/:user_id', {
    permission: MANAGE,
    params: UserIdParams,
    body: UpsertUserBudgetOverrideBody,
    command: async ({ identity, params, body }) => {
      // The user lives in the identity context, which the override's decider cannot see.
      await assertUserInTenant(identity.tenantId, params.user_id);
      return forgetting(
        identity.tenantId,
        upsertUserBudgetOverride(
          deps,
          identity.tenantId,
          upsertUserBudgetOverrideCommand(params.user_id, body, identity.userId),
        ),
      );
    },
    respond: async (_, { identity, params }) => {
      const stored = await findUserBudgetOverride(knex, identity.tenantId, params.user_id);
      if (!stored) throw new NotFound('No budget override for this user');
      return overrideView(stored);
    },
  });

  route.delete('/settings/user-overrides/:user_id', {
    permission: MANAGE,
    params: UserIdParams,
    status: 204,
    command: ({ identity, params }) =>
      forgetting(
        identity.tenantId,
        deleteUserBudgetOverride(deps, identity.tenantId, {
          type: 'DeleteUserBudgetOverride',
          userId: params.user_id,
          actorId: identity.userId,
        }),
      ),
  });

  route.get('/settings/audit-log', {
    permission: MANAGE,
    query: AuditQuery,
    read: ({ identity, query }) => listSettingsAudit(knex, identity.tenantId, query),
  });

  return router;
}
