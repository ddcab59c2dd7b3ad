import type { Properties } from '../../../streams/graph/properties';
import { num } from '../packs/pack';

/**
 * One month's Form PR figures of a well, as the graph holds them: the current fields when the
 * well's newest reported month (`form_pr_period`) is that month, else the month's entry of
 * `production_history_12m`. Null when the graph holds nothing for the month — missing is not
 * zero. Volumes a source did not report stay null inside a found month.
 */
export interface MonthFigures {
  period: string;
  basis: 'current_month' | 'history';
  oilBbl: number | null;
  gasMcf: number | null;
  condensateBbl: number | null;
  flaredMcf: number | null;
  ventedMcf: number | null;
  producingDays: number | null;
  /** Gas dispositions were reported for the month: a code 10/11 volume left out is then 0. */
  dispositionsReported: boolean;
}

/** Properties `monthFigures` reads (a pack loads only these). */
export const FIGURE_FIELDS = [
  'form_pr_period',
  'production_oil_bbls',
  'production_gas_mcf',
  'production_casinghead_mcf',
  'production_condensate_bbls',
  'gas_flared_mcf',
  'gas_vented_mcf',
  'producing_days',
  'gas_sold_mcf',
  'gas_used_on_lease_mcf',
  'production_history_12m',
] as const;

interface HistoryEntry {
  period: string;
  oil_bbls?: unknown;
  gas_mcf?: unknown;
  gas_flared_mcf?: unknown;
  gas_vented_mcf?: unknown;
}

const figure = (v: unknown) =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' ? num(v) : null;

export function productionHistory(p: Properties): HistoryEntry[] {
  try {
    const parsed = JSON.parse(p.production_history_12m ?? '[]');
    return Array.isArray(parsed)
      ? parsed.filter((m) => m && typeof m.period === 'string').sort((a, b) => a.period.localeCompare(b.period))
      : [];
  } catch {
    return [];
  }
}

export function monthFigures(p: Properties, period: string): MonthFigures | null {
  if (p.form_pr_period === period) {
    const oil = num(p.production_oil_bbls);
    const gas = num(p.production_casinghead_mcf) ?? num(p.production_gas_mcf);
    const flared = num(p.gas_flared_mcf);
    const vented = num(p.gas_vented_mcf);
    if (oil === null && gas === null && flared === null && vented === null) return null;
    const dispositionsReported = [flared, vented, num(p.gas_sold_mcf), num(p.gas_used_on_lease_mcf)].some(
      (v) => v !== null,
    );
    return {
      period,
      basis: 'current_month',
      oilBbl: oil,
      gasMcf: gas,
      condensateBbl: num(p.production_condensate_bbls),
      flaredMcf: flared,
      ventedMcf: vented,
      producingDays: num(p.producing_days),
      dispositionsReported,
    };
  }
  const entry = productionHistory(p).find((m) => m.period === period);
  if (!entry) return null;
  return {
    period,
    basis: 'history',
    oilBbl: figure(entry.oil_bbls),
    gasMcf: figure(entry.gas_mcf),
    condensateBbl: null,
    flaredMcf: figure(entry.gas_flared_mcf),
    ventedMcf: figure(entry.gas_vented_mcf),
    producingDays: null,
    dispositionsReported: entry.gas_flared_mcf !== undefined || entry.gas_vented_mcf !== undefined,
  };
}

/** `oil 3110 bbl, gas 9330 mcf` — the figures a reason quotes. */
export function describeFigures(f: { oilBbl: number | null; gasMcf: number | null }): string {
  return (
    [f.oilBbl === null ? null : `oil ${f.oilBbl} bbl`, f.gasMcf === null ? null : `gas ${f.gasMcf} mcf`]
      .filter(Boolean)
      .join(', ') || 'no volumes'
  );
}
