import type { z } from 'zod';
import type { PlatformDeps } from '../../src/platform/context-module';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { AUDIT_ACTIONS, SETTING_NAMES, type TenantSettingsValues, WIRE_NAMES } from '../../streams/settings/fields';
import {
  evolveTenantSettings,
  initialTenantSettings,
  readTenantSettingsEvent,
  type SettingChanges,
  type TenantSettingsEvent,
  type TenantSettingsState,
  tenantSettingsStream,
  valuesOf,
} from '../../streams/settings/tenant-settings';
import {
  costPerDay,
  costPerExecution,
  exactObject,
  modelId,
  thinkingMode,
  tokensPerDay,
  tokensPerExecution,
} from './field-schemas';

/** PUT /settings: any of the fields, each optional; null clears it back to inheriting. */
export const UpdateTenantSettingsBody = exactObject({
  default_model: modelId.nullable().optional(),
  fallback_model: modelId.nullable().optional(),
  max_tokens_per_execution: tokensPerExecution.nullable().optional(),
  max_cost_usd_per_execution: costPerExecution.nullable().optional(),
  max_tokens_per_day: tokensPerDay.nullable().optional(),
  max_cost_usd_per_day: costPerDay.nullable().optional(),
  max_thinking_mode: thinkingMode.nullable().optional(),
});

export type UpdateTenantSettings = {
  type: 'UpdateTenantSettings';
  values: Partial<TenantSettingsValues>;
  actorId: string;
};

/** The body's wire names to the command's domain names; absent fields stay absent. */
export function updateTenantSettingsCommand(
  body: z.infer<typeof UpdateTenantSettingsBody>,
  actorId: string,
): UpdateTenantSettings {
  const values: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const wire = WIRE_NAMES[name] as keyof typeof body;
    if (body[wire] !== undefined) values[name] = body[wire];
  }
  return { type: 'UpdateTenantSettings', values: values as Partial<TenantSettingsValues>, actorId };
}

export const tenantSettingsDecider: Decider<UpdateTenantSettings, TenantSettingsState, TenantSettingsEvent> = {
  initialState: initialTenantSettings,
  evolve: evolveTenantSettings,
  read: readTenantSettingsEvent,
  decide(command, state, now) {
    switch (command.type) {
      case 'UpdateTenantSettings': {
        const current = valuesOf(state);
        const changes: Record<string, { from: unknown; to: unknown }> = {};
        for (const name of SETTING_NAMES) {
          const to = command.values[name];
          if (to !== undefined && to !== current[name]) changes[name] = { from: current[name], to };
        }
        // Writing the values already in force changes nothing, so it records nothing.
        if (Object.keys(changes).length === 0) return [];
        return [
          {
            type: 'TenantSettingsUpdated',
            data: { changes: changes as SettingChanges, updatedBy: command.actorId, updatedAt: now.toISOString() },
          },
        ];
      }
      default:
        return assertNever(command.type);
    }
  },
};

export async function updateTenantSettings(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  command: UpdateTenantSettings,
): Promise<void> {
  await deps.handle(tenantSettingsDecider, tenantSettingsStream(tenantId), command, {
    tenantId,
    actorId: command.actorId,
    metadata: { action: AUDIT_ACTIONS.update },
  });
}
