import type { CommandContext } from '../../platform/command-handling/command-handler';
import { loadAggregate } from '../../platform/command-handling/multi-stream-command';
import type { PlatformDeps } from '../../platform/context-module';
import { countTokens } from '../../platform/infra/tokens';
import type { TurnSettings } from '../settings/effective-settings';
import { ReserveTurnBudget, reserveTurnBudget, turnReservation } from '../../../commands/agents/reserve-turn-budget';
import { settleTurnBudget } from '../../../commands/agents/settle-turn-budget';
import { tenantSettingsAggregate, tenantSettingsStream, valuesOf } from '../../../streams/settings/tenant-settings';
import { capsOf, userBudgetOverrideAggregate, userBudgetOverrideStream } from '../../../streams/settings/user-budget-override';

type Deps = Pick<PlatformDeps, 'store' | 'projections' | 'logger' | 'config' | 'clock'>;

/**
 * The daily caps a reservation applies. Settings that could not be read (the turn runs
 * `degraded` on environment defaults, spec 1 §4 item 1) must not lift the caps: they are read
 * from the settings streams themselves, and failing that the usage streams' last applied caps
 * are used (`last-known`). Caps never fail open.
 */
export async function dailyCapsFor(deps: Deps, settings: TurnSettings): Promise<Pick<ReserveTurnBudget, 'tenantCaps' | 'userCaps'>> {
  if (!settings.degraded) return { tenantCaps: settings.tenantDailyCaps, userCaps: settings.userDailyCaps };
  try {
    const [tenant, override] = await Promise.all([
      loadAggregate(deps.store, tenantSettingsAggregate, tenantSettingsStream(settings.tenantId)),
      loadAggregate(deps.store, userBudgetOverrideAggregate, userBudgetOverrideStream(settings.tenantId, settings.userId)),
    ]);
    const values = valuesOf(tenant.state);
    return { tenantCaps: { maxTokensPerDay: values.maxTokensPerDay, maxCostUsdPerDay: values.maxCostUsdPerDay }, userCaps: capsOf(override.state) };
  } catch (err) {
    deps.logger.warn({ err, tenantId: settings.tenantId }, 'settings streams unreadable; the last known daily caps apply');
    return { tenantCaps: 'last-known', userCaps: 'last-known' };
  }
}

/** Reserves the turn's budget (429 when a daily cap is reached); answers the UTC day it counts against. */
export async function reserveTurn(deps: Deps, context: CommandContext, settings: TurnSettings, executionId: string, message: string): Promise<string> {
  const amount = turnReservation(settings, countTokens(message));
  return reserveTurnBudget(deps, context, { type: 'ReserveTurnBudget', executionId, userId: settings.userId, ...amount, ...(await dailyCapsFor(deps, settings)) });
}

/** A turn refused after its reservation (a foreign attachment id…) never began: its reservation is released. */
export async function releaseTurn(deps: Deps, context: CommandContext, userId: string, executionId: string, day: string): Promise<void> {
  await settleTurnBudget(deps, context, { type: 'SettleTurnBudget', executionId, userId, day, tokensUsed: 0, costUsd: 0, released: true }).catch((err) =>
    deps.logger.error({ err, executionId }, 'budget reservation of a turn that never began not released; it counts until the day ends'),
  );
}
