import { numberOf, type Properties } from '../../streams/graph/properties';

/** 1 mcf ≈ 1.037 MMBtu (the EIA's average heat content): gas value = mcf × 1.037 × Henry Hub. */
export const MMBTU_PER_MCF = 1.037;
const DAYS_PER_MONTH = 30.4375;

export interface Prices {
  wti_price: number;
  henry_hub_price: number;
}

/** The latest reported month of each well (Form PR figures on the vertex). */
export function monthlyVolumes(properties: Properties): { oil_bbls: number; gas_mcf: number } {
  return {
    oil_bbls: numberOf(properties.production_oil_bbls) + numberOf(properties.production_condensate_bbls),
    gas_mcf: numberOf(properties.production_gas_mcf) + numberOf(properties.production_casinghead_mcf),
  };
}

const money = (n: number) => Math.round(n * 100) / 100;

/**
 * Revenue at risk if the affected wells stopped: their latest monthly volumes priced at WTI
 * ($/bbl) and Henry Hub ($/MMBtu), per month, per day and annualised.
 */
export function economicImpact(
  wells: Array<{ id: string; entity_id: string; properties: Properties }>,
  prices: Prices,
) {
  let oil = 0;
  let gas = 0;
  const perWell = wells.map((w) => {
    const v = monthlyVolumes(w.properties);
    oil += v.oil_bbls;
    gas += v.gas_mcf;
    const value = v.oil_bbls * prices.wti_price + v.gas_mcf * MMBTU_PER_MCF * prices.henry_hub_price;
    return {
      id: w.id,
      entity_id: w.entity_id,
      oil_bbls_per_month: v.oil_bbls,
      gas_mcf_per_month: v.gas_mcf,
      monthly_value_usd: money(value),
    };
  });
  const oilValue = oil * prices.wti_price;
  const gasValue = gas * MMBTU_PER_MCF * prices.henry_hub_price;
  const monthly = oilValue + gasValue;
  return {
    wti_price: prices.wti_price,
    henry_hub_price: prices.henry_hub_price,
    mmbtu_per_mcf: MMBTU_PER_MCF,
    wells_counted: wells.length,
    oil_bbls_per_month: oil,
    gas_mcf_per_month: gas,
    gas_mmbtu_per_month: money(gas * MMBTU_PER_MCF),
    oil_value_usd_per_month: money(oilValue),
    gas_value_usd_per_month: money(gasValue),
    total_value_usd_per_month: money(monthly),
    total_value_usd_per_day: money(monthly / DAYS_PER_MONTH),
    total_value_usd_per_year: money(monthly * 12),
    top_wells: perWell.sort((a, b) => b.monthly_value_usd - a.monthly_value_usd).slice(0, 10),
  };
}
