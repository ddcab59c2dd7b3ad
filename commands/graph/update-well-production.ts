import { z } from 'zod';
import type { Decider } from '../../src/platform/command-handling/decider';
import { NotFound } from '../../src/platform/domain-errors';
import type { VertexView } from '../../queries/graph/entities';
import { namespaceOf, vertexStream } from '../../streams/graph/names';
import { applyChanges, type Properties, storedValue } from '../../streams/graph/properties';
import {
  importRecord,
  vertexAggregate,
  vertexAsKnown,
  type VertexEvent,
  type VertexFacts,
  type VertexState,
} from '../../streams/graph/vertex';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';
import { resolveVertex } from './resolve-vertex';

/** Form PR figures are whole numbers: barrels of oil and water, mcf of gas; a billion is far past any well's month. */
const volume = z.number().int().nonnegative().max(1_000_000_000);

export const WellProductionBody = z
  .object({
    reporting_month: z
      .string()
      .max(7)
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'YYYY-MM'),
    oil_bbls: volume.optional(),
    gas_mcf: volume.optional(),
    water_bbls: volume.optional(),
    disposition_code_10_mcf: volume.optional(),
    disposition_code_11_mcf: volume.optional(),
    production_casinghead_mcf: volume.optional(),
    production_condensate_bbls: volume.optional(),
    gas_sold_mcf: volume.optional(),
    gas_used_on_lease_mcf: volume.optional(),
    producing_days: z.number().int().min(0).max(31).optional(),
    allocation_method: z.string().max(100).optional(),
    /** Authority remark for volumes under codes 10/11: AR, AE, EP or EX. */
    authority_remark: z.enum(['AR', 'AE', 'EP', 'EX']).optional(),
  })
  .strict();
export type WellProduction = z.infer<typeof WellProductionBody>;

export interface UpdateWellProduction {
  type: 'UpdateWellProduction';
  vertexId: string;
  namespace: string;
  report: WellProduction;
  imported: VertexFacts | null;
}

interface HistoryEntry {
  period: string;
  oil_bbls?: number;
  gas_mcf?: number;
  water_bbls?: number;
  gas_flared_mcf?: number;
  gas_vented_mcf?: number;
}

function parseHistory(text: string | undefined): HistoryEntry[] {
  if (!text) return [];
  try {
    const value = JSON.parse(text);
    return Array.isArray(value) ? value.filter((e) => e && typeof e.period === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The report's month joins the 12-month history (replacing a previous report of the same
 * month); the "current" production fields follow only the newest month, so a late
 * correction of an older month does not overwrite this month's figures.
 */
export function productionChanges(current: Properties, report: WellProduction): Properties {
  const entry: HistoryEntry = { period: report.reporting_month };
  if (report.oil_bbls !== undefined) entry.oil_bbls = report.oil_bbls;
  if (report.gas_mcf !== undefined) entry.gas_mcf = report.gas_mcf;
  if (report.water_bbls !== undefined) entry.water_bbls = report.water_bbls;
  if (report.disposition_code_10_mcf !== undefined) entry.gas_flared_mcf = report.disposition_code_10_mcf;
  if (report.disposition_code_11_mcf !== undefined) entry.gas_vented_mcf = report.disposition_code_11_mcf;
  const history = parseHistory(current.production_history_12m).filter((e) => e.period !== report.reporting_month);
  history.push(entry);
  history.sort((a, b) => a.period.localeCompare(b.period));
  const set: Properties = { production_history_12m: JSON.stringify(history.slice(-12)) };
  const newest = !current.form_pr_period || report.reporting_month >= current.form_pr_period;
  if (!newest) return set;
  const fields: Record<string, unknown> = {
    reporting_month: report.reporting_month,
    form_pr_period: report.reporting_month,
    oil_bbls: report.oil_bbls,
    production_oil_bbls: report.oil_bbls,
    gas_mcf: report.gas_mcf,
    production_gas_mcf: report.gas_mcf,
    water_bbls: report.water_bbls,
    production_water_bbls: report.water_bbls,
    disposition_code_10_mcf: report.disposition_code_10_mcf,
    gas_flared_mcf: report.disposition_code_10_mcf,
    disposition_code_11_mcf: report.disposition_code_11_mcf,
    gas_vented_mcf: report.disposition_code_11_mcf,
    production_casinghead_mcf: report.production_casinghead_mcf,
    production_condensate_bbls: report.production_condensate_bbls,
    gas_sold_mcf: report.gas_sold_mcf,
    gas_used_on_lease_mcf: report.gas_used_on_lease_mcf,
    producing_days: report.producing_days,
    allocation_method: report.allocation_method,
    authority_remark: report.authority_remark,
  };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) set[name] = storedValue(value);
  return set;
}

export function decideUpdateWellProduction(command: UpdateWellProduction, stored: VertexState): VertexEvent[] {
  const state = vertexAsKnown(stored, command.imported);
  if (state.status !== 'active' || state.label !== 'Well') throw new NotFound('well not found');
  const set = productionChanges(state.properties, command.report);
  const { vertexId, namespace } = command;
  return [
    ...importRecord(stored, command.imported, { vertexId, namespace }),
    {
      type: 'WellProductionReported',
      data: { vertexId, namespace, reportingMonth: command.report.reporting_month, set },
    },
  ];
}

export const updateWellProductionDecider: Decider<UpdateWellProduction, VertexState, VertexEvent> = {
  ...vertexAggregate,
  decide: decideUpdateWellProduction,
};

export async function updateWellProduction(
  deps: GraphCommandDeps,
  actor: GraphActor,
  id: string,
  report: WellProduction,
): Promise<VertexView> {
  const namespace = namespaceOf(actor.tenantId);
  const vertex = await resolveVertex(deps.knex, namespace, 'Well', id);
  const command: UpdateWellProduction = {
    type: 'UpdateWellProduction',
    vertexId: vertex.id,
    namespace,
    report,
    imported: { label: vertex.label, entityId: vertex.entity_id, properties: vertex.properties },
  };
  const { events } = await deps.handle(
    updateWellProductionDecider,
    vertexStream(actor.tenantId, vertex.id),
    command,
    commandContext(actor),
  );
  const reported = events.find((e) => e.type === 'WellProductionReported');
  const set = reported?.type === 'WellProductionReported' ? reported.data.set : {};
  return { ...vertex, properties: applyChanges(vertex.properties, set, []) };
}
