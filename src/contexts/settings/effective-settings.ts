import type { Config } from '../../platform/config';
import type { PlatformDeps } from '../../platform/context-module';
import { ValidationFailed } from '../../platform/domain-errors';
import {
  type BudgetCaps,
  INHERIT_ALL,
  SETTING_NAMES,
  type SettingName,
  type TenantSettingsValues,
} from '../../../streams/settings/fields';
import { isModelId } from '../../platform/infra/llm/model-options';
import { loadTenantSettings } from './settings-cache';
import { clampThinkingMode, type ThinkingMode } from '../../platform/infra/llm/thinking-mode';

export type SettingSource = 'tenant' | 'default';

/** The environment's value for each setting; `null` where the spec names no env default. */
export function environmentDefaults(config: Pick<Config, 'settingsDefaults'>): TenantSettingsValues {
  const d = config.settingsDefaults;
  return {
    defaultModel: d.defaultModel,
    fallbackModel: null,
    maxTokensPerExecution: d.maxTokensPerExecution,
    maxCostUsdPerExecution: d.maxCostUsdPerExecution,
    maxTokensPerDay: null,
    maxCostUsdPerDay: null,
    maxThinkingMode: d.maxThinkingMode,
  };
}

/** Tenant value, else environment default (GET /settings `effective` and `sources`). */
export function effectiveTenantSettings(
  stored: TenantSettingsValues,
  defaults: TenantSettingsValues,
): { effective: TenantSettingsValues; sources: Record<SettingName, SettingSource> } {
  const effective: Record<string, unknown> = {};
  const sources = {} as Record<SettingName, SettingSource>;
  for (const name of SETTING_NAMES) {
    const own = stored[name];
    effective[name] = own ?? defaults[name];
    sources[name] = own === null ? 'default' : 'tenant';
  }
  return { effective: effective as unknown as TenantSettingsValues, sources };
}

/** What one agent turn may ask for (plus the project's default mode). */
export interface TurnRequestOverrides {
  model?: string | null;
  maxTokens?: number | null;
  maxCostUsd?: number | null;
  thinkingMode?: string | null;
  /** A project's `defaults.thinking_mode`: between the request and the tenant in the chain. */
  projectThinkingMode?: string | null;
}

export type TurnSource = 'request' | 'project' | 'tenant' | 'default';

/** The settings one agent turn runs under. */
export interface TurnSettings {
  tenantId: string;
  userId: string;
  model: string;
  fallbackModel: string | null;
  maxTokensPerExecution: number | null;
  maxCostUsdPerExecution: number | null;
  thinkingMode: ThinkingMode;
  thinkingModeCeiling: ThinkingMode;
  /** The asked-for mode was above the ceiling or unknown, and was lowered (log it). */
  thinkingModeClamped: boolean;
  /** The tenant's daily caps: the aggregate ceiling over all its users. */
  tenantDailyCaps: BudgetCaps;
  /** This user's own daily caps, when an override exists. */
  userDailyCaps: BudgetCaps | null;
  sources: {
    model: TurnSource;
    fallbackModel: TurnSource;
    maxTokensPerExecution: TurnSource;
    maxCostUsdPerExecution: TurnSource;
    thinkingMode: TurnSource;
  };
  /** The settings could not be read: everything is the environment default. */
  degraded: boolean;
}

/** A request may lower a budget below the tenant/environment value, never raise it. */
function tighten(
  requested: number | null | undefined,
  ceiling: number | null,
  ceilingSource: SettingSource,
): { value: number | null; source: TurnSource } {
  if (requested === null || requested === undefined) return { value: ceiling, source: ceilingSource };
  if (ceiling !== null && requested >= ceiling) return { value: ceiling, source: ceilingSource };
  return { value: requested, source: 'request' };
}

/**
 * Pure resolution: request override → tenant setting → environment default. The model may
 * be replaced by the request; budgets may only be tightened by it; the thinking mode follows
 * request → project → the ceiling itself, and is clamped to the ceiling.
 */
export function resolveTurnSettings(input: {
  tenantId: string;
  userId: string;
  stored: TenantSettingsValues;
  userOverride: BudgetCaps | null;
  defaults: TenantSettingsValues;
  request?: TurnRequestOverrides;
  degraded?: boolean;
}): TurnSettings {
  const request = input.request ?? {};
  const { effective, sources } = effectiveTenantSettings(input.stored, input.defaults);
  if (request.model != null && !isModelId(request.model)) {
    throw new ValidationFailed([
      {
        loc: ['body', 'model'],
        msg: `"${request.model}" is not a model id from /settings/model-options`,
        type: 'unknown_model',
      },
    ]);
  }
  const tokens = tighten(request.maxTokens, effective.maxTokensPerExecution, sources.maxTokensPerExecution);
  const cost = tighten(request.maxCostUsd, effective.maxCostUsdPerExecution, sources.maxCostUsdPerExecution);
  const ceiling = effective.maxThinkingMode ?? 'adaptive';
  const asked: { value: string; source: TurnSource } =
    request.thinkingMode != null
      ? { value: request.thinkingMode, source: 'request' }
      : request.projectThinkingMode != null
        ? { value: request.projectThinkingMode, source: 'project' }
        : { value: ceiling, source: sources.maxThinkingMode };
  const thinking = clampThinkingMode(asked.value, ceiling);
  return {
    tenantId: input.tenantId,
    userId: input.userId,
    model: request.model ?? effective.defaultModel!,
    fallbackModel: effective.fallbackModel,
    maxTokensPerExecution: tokens.value,
    maxCostUsdPerExecution: cost.value,
    thinkingMode: thinking.mode,
    thinkingModeCeiling: ceiling,
    thinkingModeClamped: thinking.clamped,
    tenantDailyCaps: { maxTokensPerDay: effective.maxTokensPerDay, maxCostUsdPerDay: effective.maxCostUsdPerDay },
    userDailyCaps: input.userOverride,
    sources: {
      model: request.model != null ? 'request' : sources.defaultModel,
      fallbackModel: sources.fallbackModel,
      maxTokensPerExecution: tokens.source,
      maxCostUsdPerExecution: cost.source,
      thinkingMode: thinking.clamped ? sources.maxThinkingMode : asked.source,
    },
    degraded: input.degraded ?? false,
  };
}

/**
 * What agent code calls at the start of every turn. A failed settings read degrades to the
 * environment defaults (logged) instead of failing the turn.
 */
export async function resolveEffectiveSettings(
  deps: Pick<PlatformDeps, 'knex' | 'cache' | 'logger' | 'config'>,
  input: { tenantId: string; userId: string; request?: TurnRequestOverrides },
): Promise<TurnSettings> {
  const defaults = environmentDefaults(deps.config);
  let resolved: TurnSettings;
  try {
    const snapshot = await loadTenantSettings(deps, input.tenantId);
    const override = snapshot.overrides[input.userId] ?? null;
    resolved = resolveTurnSettings({
      ...input,
      stored: snapshot.stored.values,
      userOverride: override && {
        maxTokensPerDay: override.maxTokensPerDay,
        maxCostUsdPerDay: override.maxCostUsdPerDay,
      },
      defaults,
    });
  } catch (err) {
    if (err instanceof ValidationFailed) throw err;
    deps.logger.warn(
      { err, tenantId: input.tenantId },
      'tenant settings unavailable; this turn runs on environment defaults',
    );
    resolved = resolveTurnSettings({ ...input, stored: INHERIT_ALL, userOverride: null, defaults, degraded: true });
  }
  if (resolved.thinkingModeClamped) {
    deps.logger.info(
      {
        tenantId: input.tenantId,
        asked: input.request?.thinkingMode ?? input.request?.projectThinkingMode,
        ceiling: resolved.thinkingModeCeiling,
      },
      'thinking mode clamped to the tenant ceiling',
    );
  }
  return resolved;
}
