import type { Knex } from 'knex';
import { Invalid, Unavailable } from '../../src/platform/domain-errors';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import { toVertexView } from './entities';
import { edgeLabels, vertexLabels } from './graph-schema';

/**
 * Whitelisted graph queries: callers name a template and its parameters, never
 * query text. Every parameter is bound (a `value` as a literal, a whitelisted `label` too),
 * so nothing a caller sends is ever spliced into SQL.
 */
type ParamKind = { kind: 'value' } | { kind: 'label'; of: 'edge' | 'vertex' };

interface Template {
  params: Record<string, ParamKind>;
  columns: string[];
  sql: string;
  bindings(namespace: string, params: Record<string, string>): Knex.RawBinding[];
  row(row: any): Record<string, unknown>;
}

// The operator is addressed by business entity_id (or graph uuid).
const OPERATOR = `SELECT id FROM ${VERTICES} WHERE namespace = ? AND label = 'Operator' AND (entity_id = ? OR id::text = ?)`;
const OPERATOR_WELLS = `SELECT e.from_id AS id FROM ${EDGES} e WHERE e.namespace = ? AND e.label = 'OPERATED_BY' AND e.from_label = 'Well' AND e.to_id IN (${OPERATOR})`;
const vertexRow = (column: string) => (r: any) => ({ [column]: toVertexView(r) });
const operatorBindings = (ns: string, p: Record<string, string>) => [ns, ns, p.operator_id, p.operator_id];

export const TEMPLATES: Record<string, Template> = {
  operator_wells: {
    params: { operator_id: { kind: 'value' } },
    columns: ['w'],
    sql: `SELECT w.id, w.label, w.entity_id, w.properties FROM ${VERTICES} w WHERE w.id IN (${OPERATOR_WELLS}) ORDER BY w.entity_id`,
    bindings: operatorBindings,
    row: vertexRow('w'),
  },
  operator_permits: {
    // A permit hangs off a well of the operator (or the operator itself) by any edge.
    params: { operator_id: { kind: 'value' } },
    columns: ['p'],
    sql: `WITH owned AS (${OPERATOR_WELLS} UNION ${OPERATOR})
          SELECT p.id, p.label, p.entity_id, p.properties FROM ${VERTICES} p
           WHERE p.label = 'Permit' AND p.id IN (
             SELECT e.from_id FROM ${EDGES} e WHERE e.namespace = ? AND e.from_label = 'Permit' AND e.to_id IN (SELECT id FROM owned)
             UNION SELECT e.to_id FROM ${EDGES} e WHERE e.namespace = ? AND e.to_label = 'Permit' AND e.from_id IN (SELECT id FROM owned))
           ORDER BY p.entity_id`,
    bindings: (ns, p) => [...operatorBindings(ns, p), ns, p.operator_id, p.operator_id, ns, ns],
    row: vertexRow('p'),
  },
  operator_flaring_auths: {
    params: { operator_id: { kind: 'value' } },
    columns: ['fa'],
    sql: `SELECT fa.id, fa.label, fa.entity_id, fa.properties FROM ${VERTICES} fa
           WHERE fa.id IN (SELECT e.from_id FROM ${EDGES} e WHERE e.namespace = ? AND e.label = 'FLARES_AT' AND e.from_label = 'FlaringAuthorization'
                            AND e.to_id IN (${OPERATOR_WELLS}))
           ORDER BY fa.entity_id`,
    bindings: (ns, p) => [ns, ...operatorBindings(ns, p)],
    row: vertexRow('fa'),
  },
  operator_flaring_auths_via_lease: {
    // Leases the operator runs directly or through one of its wells.
    params: { operator_id: { kind: 'value' } },
    columns: ['fa'],
    sql: `WITH leases AS (
            SELECT e.from_id AS id FROM ${EDGES} e WHERE e.namespace = ? AND e.label = 'OPERATED_BY' AND e.from_label = 'Lease' AND e.to_id IN (${OPERATOR})
            UNION SELECT e.to_id FROM ${EDGES} e WHERE e.namespace = ? AND e.label = 'LOCATED_IN' AND e.to_label = 'Lease' AND e.from_id IN (${OPERATOR_WELLS}))
          SELECT fa.id, fa.label, fa.entity_id, fa.properties FROM ${VERTICES} fa
           WHERE fa.id IN (SELECT e.from_id FROM ${EDGES} e WHERE e.namespace = ? AND e.label = 'FLARES_AT' AND e.from_label = 'FlaringAuthorization'
                            AND e.to_id IN (SELECT id FROM leases))
           ORDER BY fa.entity_id`,
    bindings: (ns, p) => [ns, ns, p.operator_id, p.operator_id, ns, ...operatorBindings(ns, p), ns],
    row: vertexRow('fa'),
  },
  edge_usage: {
    params: { edge_label: { kind: 'label', of: 'edge' } },
    columns: ['source', 'target', 'cnt'],
    sql: `SELECT from_label AS source, to_label AS target, count(*)::int AS cnt FROM ${EDGES}
           WHERE namespace = ? AND label = ? GROUP BY from_label, to_label ORDER BY cnt DESC, source, target`,
    bindings: (ns, p) => [ns, p.edge_label],
    row: (r) => ({ source: r.source, target: r.target, cnt: r.cnt }),
  },
};

/** Checks the template and its parameter set; returns the parameters as bound strings. */
export async function checkTemplateCall(
  knex: Knex,
  templateId: string,
  params: Record<string, unknown>,
): Promise<{ template: Template; values: Record<string, string> }> {
  const template = Object.prototype.hasOwnProperty.call(TEMPLATES, templateId) ? TEMPLATES[templateId] : undefined;
  if (!template) throw new Invalid(`unknown template_id '${templateId}'; known: ${Object.keys(TEMPLATES).join(', ')}`);
  const expected = Object.keys(template.params).sort();
  const given = Object.keys(params).sort();
  if (expected.join(',') !== given.join(','))
    throw new Invalid(`template ${templateId} takes exactly the parameters: ${expected.join(', ')}`);
  const values: Record<string, string> = {};
  for (const [name, kind] of Object.entries(template.params)) {
    const value = params[name];
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value)))
      throw new Invalid(`parameter ${name} must be a string or a number`);
    values[name] = String(value);
    if (kind.kind === 'label') {
      const allowed = kind.of === 'edge' ? await edgeLabels(knex) : await vertexLabels(knex);
      if (!allowed.includes(values[name]))
        throw new Invalid(`parameter ${name}: '${values[name]}' is not an allowed ${kind.of} label`);
    }
  }
  return { template, values };
}

/** A failing graph query is an error (503), never an empty success. */
export async function runTemplate(
  knex: Knex,
  namespace: string,
  templateId: string,
  params: Record<string, unknown>,
): Promise<{ results: Record<string, unknown>[]; count: number }> {
  const { template, values } = await checkTemplateCall(knex, templateId, params);
  let rows: any[];
  try {
    rows = (await knex.raw(template.sql, template.bindings(namespace, values))).rows;
  } catch {
    throw new Unavailable(`graph query failed for template ${templateId}`);
  }
  const results = rows.map(template.row);
  return { results, count: results.length };
}
