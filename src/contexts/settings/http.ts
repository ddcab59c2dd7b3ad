import { Router } from 'express';
import { deleteUserBudgetOverride } from '../../../commands/settings/delete-user-budget-override';
import { UpdateTenantSettingsBody, updateTenantSettings, updateTenantSettingsCommand } from '../../../commands/settings/update-tenant-settings';
import { UpsertUserBudgetOverrideBody, upsertUserBudgetOverride, upsertUserBudgetOverrideCommand } from '../../../commands/settings/upsert-user-budget-override';
import { listSettingsAudit } from '../../../queries/settings/audit-log';
import type { StoredUserOverride, TenantSettingsSnapshot } from '../../../queries/settings/tenant-settings';
import { findUserBudgetOverride, listUserBudgetOverrides } from '../../../queries/settings/user-budget-overrides';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity';
import { effectiveTenantSettings, environmentDefaults } from './effective-settings';
import { SETTING_NAMES, TenantSettingsValues, WIRE_NAMES } from '../../../streams/settings/fields';
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
    settings: { ...wire(snapshot.stored.values), updated_by: snapshot.stored.updatedBy, updated_at: snapshot.stored.updatedAt },
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

  router.get('/settings', async (req, res) => {
    const { tenantId, userId } = requireIdentity(req);
    res.json(settingsView(await loadTenantSettings(deps, tenantId), defaults, userId));
  });

  router.put('/settings', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { tenantId, userId } = requireIdentity(req);
    const body = parseBody(req, UpdateTenantSettingsBody);
    await updateTenantSettings(deps, tenantId, updateTenantSettingsCommand(body, userId));
    await invalidateTenantSettings(deps, tenantId);
    res.json(settingsView(await loadTenantSettings(deps, tenantId), defaults, userId));
  });

  router.get('/settings/model-options', async (req, res) => {
    requireIdentity(req);
    res.json(MODEL_OPTIONS);
  });

  router.get('/settings/user-overrides', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { tenantId } = requireIdentity(req);
    res.json((await listUserBudgetOverrides(knex, tenantId)).map(overrideView));
  });

  router.put('/settings/user-overrides/:user_id', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { tenantId, userId: actorId } = requireIdentity(req);
    const { user_id } = parseParams(req, UserIdParams);
    const body = parseBody(req, UpsertUserBudgetOverrideBody);
    await assertUserInTenant(tenantId, user_id);
    await upsertUserBudgetOverride(deps, tenantId, upsertUserBudgetOverrideCommand(user_id, body, actorId));
    await invalidateTenantSettings(deps, tenantId);
    const stored = await findUserBudgetOverride(knex, tenantId, user_id);
    if (!stored) throw new NotFound('No budget override for this user');
    res.json(overrideView(stored));
  });

  router.delete('/settings/user-overrides/:user_id', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { tenantId, userId: actorId } = requireIdentity(req);
    const { user_id } = parseParams(req, UserIdParams);
    await deleteUserBudgetOverride(deps, tenantId, { type: 'DeleteUserBudgetOverride', userId: user_id, actorId });
    await invalidateTenantSettings(deps, tenantId);
    res.status(204).end();
  });

  router.get('/settings/audit-log', async (req, res) => {
    requirePermission(req, MANAGE, deps);
    const { tenantId } = requireIdentity(req);
    const query = parseQuery(req, AuditQuery);
    res.json(await listSettingsAudit(knex, tenantId, query));
  });

  return router;
}
