import type { ThinkingMode } from '../../src/platform/infra/llm/thinking-mode';

/**
 * The tenant settings: every value nullable, null meaning "inherit the
 * environment default". The six fields of the spec plus `maxThinkingMode`, the tenant's
 * thinking-mode ceiling (the spec leaves its name open; on the wire it is `max_thinking_mode`).
 */
export interface TenantSettingsValues {
  defaultModel: string | null;
  fallbackModel: string | null;
  maxTokensPerExecution: number | null;
  maxCostUsdPerExecution: number | null;
  maxTokensPerDay: number | null;
  maxCostUsdPerDay: number | null;
  maxThinkingMode: ThinkingMode | null;
}

export type SettingName = keyof TenantSettingsValues;

/** Domain name → the spec's wire name; the one place the two spellings meet. */
export const WIRE_NAMES: { readonly [K in SettingName]: string } = {
  defaultModel: 'default_model',
  fallbackModel: 'fallback_model',
  maxTokensPerExecution: 'max_tokens_per_execution',
  maxCostUsdPerExecution: 'max_cost_usd_per_execution',
  maxTokensPerDay: 'max_tokens_per_day',
  maxCostUsdPerDay: 'max_cost_usd_per_day',
  maxThinkingMode: 'max_thinking_mode',
};

export const SETTING_NAMES = Object.keys(WIRE_NAMES) as SettingName[];

export const INHERIT_ALL: TenantSettingsValues = Object.freeze({
  defaultModel: null,
  fallbackModel: null,
  maxTokensPerExecution: null,
  maxCostUsdPerExecution: null,
  maxTokensPerDay: null,
  maxCostUsdPerDay: null,
  maxThinkingMode: null,
});

/** What a user's budget override holds. */
export interface BudgetCaps {
  maxTokensPerDay: number | null;
  maxCostUsdPerDay: number | null;
}

/** Audit action names carried in the signed event metadata. */
export const AUDIT_ACTIONS = {
  update: 'platform_settings.update',
  overrideUpsert: 'platform_settings.user_override.upsert',
  overrideDelete: 'platform_settings.user_override.delete',
} as const;
