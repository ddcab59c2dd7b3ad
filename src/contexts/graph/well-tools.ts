import { z } from 'zod';
import type { AgentTool } from '../../platform/agent-tools';
import { headersFor } from '../../platform/agent-tools';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound } from '../../platform/domain-errors';
import { walkFrom } from '../../../queries/graph/context-walk';
import { findVertex } from '../../../queries/graph/entities';
import { wellContext } from '../../../queries/graph/well-context';
import { namespaceOf } from '../../../streams/graph/names';

/**
 * A well's regulatory facts from the knowledge graph as agent tools: its Rule 32 flaring
 * authorizations against the flared volumes, its monthly production, its offset wells
 * against Rule 37 spacing. Figures keep their units (bbl, mcf, mcf/d, ft) and say where
 * they come from (`graph:<Label>/<id>`).
 */
const DAY_MS = 86_400_000;
/** Rule 37: 1,200 ft between wells in the same horizon on the tract (16 TAC §3.37). */
const RULE_37_WELL_SPACING_FT = 1200;

const WellArgs = z.object({ entity_id: z.string().min(1).max(200).describe('API number of the well') }).strict();
type Flat = Record<string, unknown> & { id: string; label: string; entity_id: string };

export const amount = (value: unknown, unit: string) => {
  const n = Number(value);
  return Number.isFinite(n) ? `${n.toLocaleString('en-US', { maximumFractionDigits: 1 })} ${unit}` : 'not reported';
};
const numberOr = (value: unknown) =>
  value === undefined || value === null || value === '' || !Number.isFinite(Number(value)) ? null : Number(value);
const wellLabel = (well: Flat) =>
  `well ${String(well.name ?? well.entity_id)} (${String(well.api_number ?? well.entity_id)})`;

interface MonthFigures {
  period: string;
  oil_bbl: number | null;
  gas_mcf: number | null;
}

function history(well: Flat): MonthFigures[] {
  try {
    const parsed = JSON.parse(String(well.production_history_12m ?? '[]'));
    return Array.isArray(parsed)
      ? parsed.map((m) => ({ period: String(m.period), oil_bbl: numberOr(m.oil_bbls), gas_mcf: numberOr(m.gas_mcf) }))
      : [];
  } catch {
    return [];
  }
}

export function wellTools(deps: Pick<PlatformDeps, 'knex' | 'clock'>): AgentTool[] {
  const { knex } = deps;
  const today = () => deps.clock().toISOString().slice(0, 10);
  const contextOf = async (tenantId: string, id: string) => {
    const context = await wellContext(knex, namespaceOf(tenantId), id);
    return { ...context, well: context.well as Flat };
  };

  const flaringTool: AgentTool = {
    name: 'flaring_authorizations',
    description:
      'The Rule 32 flaring authorizations covering a well (on the well or its lease): number, authorized mcf/d, expiry, status, against the flared and vented volumes of its latest reported month.',
    parameters: WellArgs,
    async run(args, caller) {
      const {
        well,
        lease: leaseFlat,
        flaring_authorizations,
      } = await contextOf(caller.tenantId, (args as z.infer<typeof WellArgs>).entity_id);
      const lease = leaseFlat as Flat | null;
      const now = today();
      const days = numberOr(well.producing_days);
      const flared = numberOr(well.gas_flared_mcf) ?? 0;
      const vented = numberOr(well.gas_vented_mcf) ?? 0;
      const rate = days ? Math.round(((flared + vented) / days) * 10) / 10 : null;
      const rows = (flaring_authorizations as Flat[]).map((a) => {
        const expiry = String(a.expiry_date ?? '').slice(0, 10) || null;
        const left = expiry ? Math.round((Date.parse(expiry) - Date.parse(now)) / DAY_MS) : null;
        return {
          authorization: String(a.auth_number ?? a.entity_id),
          authorized_mcf_per_day: numberOr(a.authorized_mcf),
          expiry_date: expiry,
          status: left !== null && left < 0 ? 'expired' : String(a.status ?? 'active'),
          days_left: left,
          source: `graph:FlaringAuthorization/${a.entity_id}`,
        };
      });
      const volumes = `In ${String(well.form_pr_period ?? 'the latest reported month')} the well flared ${amount(flared, 'mcf')} (code 10) and vented ${amount(vented, 'mcf')} (code 11)${rate !== null ? `, about ${amount(rate, 'mcf/d')} over ${days} producing days` : ''}.`;
      const lines =
        rows.length === 0
          ? [
              `No Rule 32 flaring authorization covers ${wellLabel(well)}${lease ? ` or its lease ${String(lease.name ?? lease.entity_id)}` : ''}.`,
              volumes,
              ...(flared + vented > 0
                ? [
                    'Flaring or venting beyond the 10 days after completion without an authorization violates Statewide Rule 32.',
                  ]
                : []),
            ]
          : [
              `${wellLabel(well)} is covered by ${rows.length === 1 ? 'one Rule 32 flaring authorization' : `${rows.length} Rule 32 flaring authorizations`}:`,
              ...rows.map(
                (r) =>
                  `- ${r.authorization}: ${amount(r.authorized_mcf_per_day, 'mcf/d')} authorized, ${r.status === 'expired' ? `expired on ${r.expiry_date}` : r.expiry_date ? `expires on ${r.expiry_date} (in ${r.days_left} days)` : 'no expiry date'}.`,
              ),
              volumes,
              ...rows
                .filter(
                  (r) =>
                    rate !== null &&
                    r.authorized_mcf_per_day !== null &&
                    r.status !== 'expired' &&
                    rate > r.authorized_mcf_per_day,
                )
                .map(
                  (r) =>
                    `The flared rate is above the ${amount(r.authorized_mcf_per_day, 'mcf/d')} authorized by ${r.authorization}.`,
                ),
            ];
      return {
        content: lines.join('\n'),
        result: {
          kind: 'table',
          title: `Flaring authorizations of ${String(well.name ?? well.entity_id)}`,
          columns: ['authorization', 'authorized_mcf_per_day', 'expiry_date', 'status', 'days_left'],
          headers: headersFor(['authorization', 'authorized_mcf_per_day', 'expiry_date', 'status', 'days_left']),
          rows,
          total_rows: rows.length,
          flared_mcf: flared,
          vented_mcf: vented,
          rate_mcf_per_day: rate,
          entities: [{ entity_id: well.entity_id, name: String(well.name ?? well.entity_id), entity_type: 'Well' }],
        },
      };
    },
  };

  const ProductionArgs = WellArgs.extend({
    period: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
      .optional()
      .describe('production month; default the latest reported'),
  }).strict();
  const productionTool: AgentTool = {
    name: 'production_summary',
    description:
      "A well's production for one month (oil in bbl, gas in mcf, water in bbl, gas disposition: sold, lease use, flared, vented) and its 12-month history.",
    parameters: ProductionArgs,
    async run(args, caller) {
      const a = args as z.infer<typeof ProductionArgs>;
      const { well } = await contextOf(caller.tenantId, a.entity_id);
      const months = history(well);
      const latest = String(well.form_pr_period ?? months.at(-1)?.period ?? '');
      const asked = a.period ?? latest;
      const current = asked === latest;
      const latestMonth = latest
        ? { period: latest, oil_bbl: numberOr(well.production_oil_bbls), gas_mcf: numberOr(well.production_gas_mcf) }
        : undefined;
      const found = current ? latestMonth : months.find((m) => m.period === asked);
      const lines: string[] = [];
      // A month with nothing recorded answers with the latest reported one, saying so.
      if (!found)
        lines.push(
          `No production is recorded for ${wellLabel(well)} in ${asked}; the latest reported month is ${latest || 'none'}.`,
        );
      const month = found ?? latestMonth;
      const isLatest = month?.period === latest;
      if (month) {
        lines.push(
          `Production of ${wellLabel(well)}, ${String(well.well_type ?? '')} well${well.status ? ` (${String(well.status)})` : ''}, in ${month.period}: ${amount(month.oil_bbl, 'bbl')} of oil and ${amount(month.gas_mcf, 'mcf')} of gas${isLatest && numberOr(well.production_water_bbls) !== null ? `, ${amount(well.production_water_bbls, 'bbl')} of water` : ''}${isLatest && numberOr(well.producing_days) !== null ? ` over ${well.producing_days} producing days` : ''}.`,
        );
        if (isLatest)
          lines.push(
            `Gas disposition: ${amount(well.gas_sold_mcf, 'mcf')} sold, ${amount(well.gas_used_on_lease_mcf, 'mcf')} used on the lease, ${amount(well.gas_flared_mcf, 'mcf')} flared, ${amount(well.gas_vented_mcf, 'mcf')} vented.`,
          );
      }
      if (months.length > 0) {
        const oil = months.reduce((s, m) => s + (m.oil_bbl ?? 0), 0);
        const gas = months.reduce((s, m) => s + (m.gas_mcf ?? 0), 0);
        lines.push(
          `Over ${months[0].period} to ${months.at(-1)!.period}: ${amount(oil, 'bbl')} of oil and ${amount(gas, 'mcf')} of gas.`,
        );
      }
      return {
        content: lines.join('\n'),
        result: {
          kind: 'chart',
          chart_type: 'bar',
          title: `Monthly production of ${String(well.name ?? well.entity_id)}`,
          // The console draws `x`/`y` over `data` (oil); `series` names both measures, `rows` is the table.
          x: 'period',
          y: 'oil_bbl',
          data: months,
          series: [
            { key: 'oil_bbl', label: 'Oil (bbl)' },
            { key: 'gas_mcf', label: 'Gas (mcf)' },
          ],
          columns: ['period', 'oil_bbl', 'gas_mcf'],
          headers: headersFor(['period', 'oil_bbl', 'gas_mcf']),
          rows: months,
          period: month?.period ?? null,
          month: month ?? null,
          source: `graph:Well/${well.entity_id}`,
          entities: [{ entity_id: well.entity_id, name: String(well.name ?? well.entity_id), entity_type: 'Well' }],
        },
      };
    },
  };

  const offsetsTool: AgentTool = {
    name: 'offset_wells',
    description:
      "A well's offset wells with their distance in ft and horizon, against the Rule 37 spacing of 1,200 ft between wells in the same horizon.",
    parameters: WellArgs,
    async run(args, caller) {
      const { entity_id } = args as z.infer<typeof WellArgs>;
      const namespace = namespaceOf(caller.tenantId);
      const root = await findVertex(knex, namespace, 'Well', entity_id);
      if (!root) throw new NotFound(`well '${entity_id}' not found`);
      const walk = await walkFrom(knex, namespace, root, 1);
      const rows = (walk.relationships.OFFSET_TO ?? []).map((h) => {
        const distance = numberOr(h.edge_properties.distance_ft);
        const sameHorizon = h.edge_properties.same_horizon !== 'false';
        return {
          entity_id: h.vertex.entity_id,
          name: h.vertex.properties.name ?? h.vertex.entity_id,
          distance_ft: distance,
          same_horizon: sameHorizon,
          within_rule_37: sameHorizon && distance !== null && distance < RULE_37_WELL_SPACING_FT,
        };
      });
      rows.sort((a, b) => (a.distance_ft ?? Infinity) - (b.distance_ft ?? Infinity));
      const label = `well ${root.properties.name ?? root.entity_id} (${root.entity_id})`;
      const close = rows.filter((r) => r.within_rule_37);
      const lines =
        rows.length === 0
          ? [`The knowledge graph records no offset wells of ${label}.`]
          : [
              `${label[0].toUpperCase()}${label.slice(1)} has ${rows.length === 1 ? 'one offset well' : `${rows.length} offset wells`}${close.length ? `; ${close.length} closer than the 1,200 ft Rule 37 spacing in the same horizon (an exception permit is needed)` : ', none closer than the 1,200 ft Rule 37 spacing in the same horizon'}:`,
              ...rows.map(
                (r) =>
                  `- ${r.name} (${r.entity_id}): ${amount(r.distance_ft, 'ft')}${r.same_horizon ? ', same horizon' : ', another horizon'}.`,
              ),
            ];
      return {
        content: lines.join('\n'),
        result: {
          kind: 'table',
          title: `Offset wells of ${root.properties.name ?? root.entity_id}`,
          columns: ['entity_id', 'name', 'distance_ft', 'same_horizon', 'within_rule_37'],
          headers: headersFor(['entity_id', 'name', 'distance_ft', 'same_horizon', 'within_rule_37']),
          rows,
          total_rows: rows.length,
          entities: [{ entity_id: root.entity_id, name: root.properties.name ?? root.entity_id, entity_type: 'Well' }],
        },
      };
    },
  };

  return [flaringTool, productionTool, offsetsTool];
}
