import { loadAggregate } from '../../platform/command-handling/multi-stream-command';
import type { PlatformDeps } from '../../platform/context-module';
import { countTokens } from '../../platform/infra/tokens';
import type { TurnSettings } from '../settings';
import { type ReserveTurnBudget, turnReservation } from '../../../commands/agents/reserve-turn-budget';
import { tenantSettingsAggregate, tenantSettingsStream, valuesOf } from '../../../streams/settings/tenant-settings';
import {
  capsOf,
  userBudgetOverrideAggregate,
  userBudgetOverrideStream,
} from '../../../streams/settings/user-budget-override';

type Deps = Pick<PlatformDeps, 'store' | 'logger'>;

/**
 * The daily caps a reservation applies. Settings that could not be read (the turn runs
 * `degraded` on environment defaults) must not lift the caps: they are read
 * from the settings streams themselves, and failing that the usage streams' last applied caps
 * are used (`last-known`). Caps never fail open.
 */
export async function dailyCapsFor(
  deps: Deps,
  settings: TurnSettings,
): Promise<Pick<ReserveTurnBudget, 'tenantCaps' | 'userCaps'>> {
  if (!settings.degraded) return { tenantCaps: settings.tenantDailyCaps, userCaps: settings.userDailyCaps };
  try {
    const [tenant, override] = await Promise.all([
      loadAggregate(deps.store, tenantSettingsAggregate, tenantSettingsStream(settings.tenantId)),
      loadAggregate(
        deps.store,
        userBudgetOverrideAggregate,
        userBudgetOverrideStream(settings.tenantId, settings.userId),
      ),
    ]);
    const values = valuesOf(tenant.state);
    return {
      tenantCaps: { maxTokensPerDay: values.maxTokensPerDay, maxCostUsdPerDay: values.maxCostUsdPerDay },
      userCaps: capsOf(override.state),
    };
  } catch (err) {
    deps.logger.warn(
      { err, tenantId: settings.tenantId },
      'settings streams unreadable; the last known daily caps apply',
    );
    return { tenantCaps: 'last-known', userCaps: 'last-known' };
  }
}

/** What a turn reserves, with the daily caps that apply (see `dailyCapsFor`). */
export async function turnReservationOf(
  deps: Deps,
  settings: TurnSettings,
  executionId: string,
  message: string,
): Promise<ReserveTurnBudget> {
  const amount = turnReservation(settings, countTokens(message));
  return {
    type: 'ReserveTurnBudget',
    executionId,
    userId: settings.userId,
    ...amount,
    ...(await dailyCapsFor(deps, settings)),
  };
}
