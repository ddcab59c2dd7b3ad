import { z, type ApiDescription } from '../../platform/openapi/describe';
import { UpdateTenantSettingsBody } from '../../../commands/settings/update-tenant-settings';
import { UpsertUserBudgetOverrideBody } from '../../../commands/settings/upsert-user-budget-override';
import { AuditQuery, UserIdParams } from './schemas';

/** Tenant settings routes in the API contract; schemas are the router's own. */
const value = z.union([z.string(), z.number(), z.null()]);
const SettingValues = z
  .object({
    default_model: value,
    fallback_model: value,
    max_tokens_per_execution: value,
    max_cost_usd_per_execution: value,
    max_tokens_per_day: value,
    max_cost_usd_per_day: value,
    max_thinking_mode: value,
  })
  .openapi('SettingValues');
const UserOverride = z
  .object({
    user_id: z.string(),
    max_tokens_per_day: z.number().nullable(),
    max_cost_usd_per_day: z.number().nullable(),
    updated_by: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .openapi('UserBudgetOverride');
const TenantSettings = z
  .object({
    tenant_id: z.string(),
    settings: SettingValues.extend({ updated_by: z.string().nullable(), updated_at: z.string().nullable() }),
    effective: SettingValues,
    sources: z.record(z.string().nullable()),
    user_override: UserOverride.nullable(),
  })
  .openapi('TenantSettings', {
    description:
      "Stored values, effective values (tenant → environment), where each comes from, and the caller's own override.",
  });
const ModelOption = z
  .object({ id: z.string(), label: z.string(), provider: z.string(), context_window: z.string(), notes: z.string() })
  .openapi('ModelOption');
const AuditEntry = z
  .object({
    id: z.string(),
    action: z.string(),
    actor_id: z.string(),
    target_user_id: z.string().nullable(),
    changes: z.record(z.object({ from: z.unknown(), to: z.unknown() })),
    at: z.string(),
  })
  .openapi('SettingsAuditEntry');

export const settingsApi: ApiDescription = {
  tag: 'settings',
  // A handful of model ids and numbers.
  bodyLimit: 64 * 1024,
  public: () => [
    {
      method: 'get',
      path: '/settings',
      summary: "The tenant's settings: stored, effective, sources and the caller's override",
      responses: { 200: TenantSettings },
    },
    {
      method: 'put',
      path: '/settings',
      summary: 'Change tenant settings (settings.manage); null inherits the environment default',
      body: UpdateTenantSettingsBody,
      responses: { 200: TenantSettings },
    },
    {
      method: 'get',
      path: '/settings/model-options',
      summary: 'The curated model list',
      responses: { 200: z.array(ModelOption) },
    },
    {
      method: 'get',
      path: '/settings/user-overrides',
      summary: 'Per-user budget overrides (settings.manage)',
      responses: { 200: z.array(UserOverride) },
    },
    {
      method: 'put',
      path: '/settings/user-overrides/:user_id',
      summary: "Set a user's budget override",
      params: UserIdParams,
      body: UpsertUserBudgetOverrideBody,
      responses: { 200: UserOverride },
    },
    {
      method: 'delete',
      path: '/settings/user-overrides/:user_id',
      summary: "Remove a user's budget override",
      params: UserIdParams,
      responses: { 204: null },
    },
    {
      method: 'get',
      path: '/settings/audit-log',
      summary: 'Settings changes, newest first (`before` = last id of the previous page)',
      query: AuditQuery,
      responses: { 200: z.array(AuditEntry).max(500) },
    },
  ],
};
