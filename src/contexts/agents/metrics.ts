import type { EventMeter } from '../../platform/observability/metrics';
import type { TurnEvent } from '../../../streams/agents/turn';

type Of<T extends TurnEvent['type']> = Extract<TurnEvent, { type: T }>['data'];

/**
 * Turns and model spend, counted from the events a turn's end appends (whichever path ends
 * it: the turn itself, its deadline, a resume), so no call site can forget them. Tenants are
 * labelled up to `METRICS_TENANT_LABELS` (docs/operations.md#metrics).
 */
export const agentMeters: EventMeter[] = [
  {
    types: ['TurnCompleted', 'TurnPaused', 'TurnFailed'],
    observe(event, metrics) {
      const { outcome } = event.data as Of<'TurnCompleted'>;
      metrics.turns.inc({ status: outcome.status, tenant: metrics.tenant(event.metadata.tenantId) });
    },
  },
  {
    types: ['UsageRecorded'],
    observe(event, metrics) {
      const usage = event.data as Of<'UsageRecorded'>;
      const labels = { ...metrics.model(usage.model), tenant: metrics.tenant(event.metadata.tenantId) };
      // Unknown usage stays unknown: a provider that reported nothing adds nothing.
      if (usage.inputTokens !== null) metrics.modelTokens.inc({ ...labels, direction: 'input' }, usage.inputTokens);
      if (usage.outputTokens !== null) metrics.modelTokens.inc({ ...labels, direction: 'output' }, usage.outputTokens);
      if (usage.costUsd !== null) metrics.modelCost.inc(labels, usage.costUsd);
    },
  },
];
