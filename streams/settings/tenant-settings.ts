import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { INHERIT_ALL, SETTING_NAMES, type SettingName, type TenantSettingsValues } from './fields';
import { THINKING_MODES } from '../../src/platform/infra/llm/thinking-mode';

/**
 * A tenant's runtime settings: one stream per tenant. Each event records only the fields
 * that changed, with their previous value, so the audit entry reads on its own.
 */
export type SettingChanges = { [K in SettingName]?: { from: TenantSettingsValues[K]; to: TenantSettingsValues[K] } };

export type TenantSettingsEvent = {
  type: 'TenantSettingsUpdated';
  data: { changes: SettingChanges; updatedBy: string; updatedAt: string };
};

export type TenantSettingsState =
  | { status: 'inheriting' }
  | { status: 'configured'; values: TenantSettingsValues; updatedBy: string; updatedAt: string };

export const initialTenantSettings: TenantSettingsState = { status: 'inheriting' };

export const tenantSettingsStream = (tenantId: string) => `settings.tenant-${tenantId}-${tenantId}`;

const change = <T extends z.ZodTypeAny>(value: T) =>
  z.object({ from: value.nullable(), to: value.nullable() }).optional();

const TenantSettingsUpdatedSchema = z.object({
  changes: z.object({
    defaultModel: change(z.string()),
    fallbackModel: change(z.string()),
    maxTokensPerExecution: change(z.number()),
    maxCostUsdPerExecution: change(z.number()),
    maxTokensPerDay: change(z.number()),
    maxCostUsdPerDay: change(z.number()),
    maxThinkingMode: change(z.enum(THINKING_MODES)),
  }),
  updatedBy: z.string(),
  updatedAt: z.string(),
});

export function readTenantSettingsEvent(event: Pick<RecordedEvent, 'type' | 'data'>): TenantSettingsEvent {
  if (event.type !== 'TenantSettingsUpdated') throw new Error(`not a tenant settings event: ${event.type}`);
  return {
    type: 'TenantSettingsUpdated',
    data: TenantSettingsUpdatedSchema.parse(event.data) as TenantSettingsEvent['data'],
  };
}

export function valuesOf(state: TenantSettingsState): TenantSettingsValues {
  return state.status === 'configured' ? state.values : INHERIT_ALL;
}

export function applyChanges(values: TenantSettingsValues, changes: SettingChanges): TenantSettingsValues {
  const next: Record<string, unknown> = { ...values };
  for (const name of SETTING_NAMES) {
    const c = changes[name];
    if (c) next[name] = c.to;
  }
  return next as unknown as TenantSettingsValues;
}

export function evolveTenantSettings(state: TenantSettingsState, event: TenantSettingsEvent): TenantSettingsState {
  switch (event.type) {
    case 'TenantSettingsUpdated':
      return {
        status: 'configured',
        values: applyChanges(valuesOf(state), event.data.changes),
        updatedBy: event.data.updatedBy,
        updatedAt: event.data.updatedAt,
      };
  }
}

/** The tenant-settings aggregate (one stream per tenant: the id is the tenant id). */
export const tenantSettingsAggregate = {
  stream: (tenantId: string, _id: string) => tenantSettingsStream(tenantId),
  eventTypes: ['TenantSettingsUpdated'] as const,
  initialState: initialTenantSettings,
  evolve: evolveTenantSettings,
  read: readTenantSettingsEvent,
};
