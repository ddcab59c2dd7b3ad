import type { Knex } from 'knex';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import { CELLS, ENTITIES } from '../../projections/compliance/tables';
import { namespaceOf } from '../../streams/graph/names';
import { operatorNameSql } from '../graph/operator-of';
import { isoDate } from './dashboard';

/**
 * The dashboard's entities filtered as people ask for them: by type (wells, leases,
 * operators), by rule (domain), by colour, overdue, by operator, lease or county, with the
 * cells that matched and counts by operator, lease or rule.
 *
 * "Overdue" is overdue work today: a cell whose due date (a filing, a test, a renewal, a
 * plugging deadline) is before today. A red cell without a due date (a well inside the Rule 37
 * spacing, flaring without an authorization, a well spudded outside its permit) is a
 * violation, found by colour, not overdue work; nor is a permit or an authorization whose
 * expiry date passed (its "due date" is the expiry: it lapsed, nothing is late).
 */
export const COLORS = ['red', 'amber', 'blue', 'green', 'grey'] as const;
const SEVERITY_SQL = `CASE c.color WHEN 'red' THEN 4 WHEN 'amber' THEN 3 WHEN 'blue' THEN 2 WHEN 'green' THEN 1 ELSE 0 END`;
export const LIST_GROUPINGS = ['operator', 'lease', 'domain', 'county'] as const;

export interface ListFilter {
  entityType?: string;
  domain?: string;
  colors?: string[];
  overdue?: boolean;
  /** Entity ids of the operator or lease the entities belong to (OPERATED_BY, LOCATED_IN), or the entity itself. */
  operator?: string;
  lease?: string;
  county?: string;
}

export interface ListedEntity {
  entity_id: string;
  entity_type: string;
  entity_name: string;
  operator: string | null;
  lease: string | null;
  county: string | null;
  next_due: string | null;
  cells: Array<{ domain: string; color: string; reason: string; due_date: string | null }>;
}

export async function listEntities(
  knex: Knex,
  tenantId: string,
  today: string,
  domains: readonly string[],
  filter: ListFilter,
  groupBy: (typeof LIST_GROUPINGS)[number],
  limit: number,
) {
  const cellWhere: string[] = [
    'c.tenant_id = e.tenant_id',
    'c.entity_id = e.entity_id',
    'c.valid_to IS NULL',
    'c.domain = ANY(:domains)',
  ];
  const bindings: Record<string, unknown> = {
    tenantId,
    namespace: namespaceOf(tenantId),
    domains: [...domains],
    today,
  };
  if (filter.domain) {
    cellWhere.push('c.domain = :domain');
    bindings.domain = filter.domain;
  }
  // A colour without a rule is the entity's own (its worst cell, as the dashboard shows it): a "compliant" well has no red cell.
  const worstColor = filter.colors?.length && !filter.domain;
  if (filter.colors?.length) {
    if (!worstColor) cellWhere.push('c.color = ANY(:colors)');
    bindings.colors = filter.colors;
  }
  if (filter.overdue)
    cellWhere.push(
      `c.due_date < CAST(:today AS date) AND c.facts->>'expiration_date' IS DISTINCT FROM to_char(c.due_date, 'YYYY-MM-DD')`,
    );
  const matching = filter.domain || filter.colors?.length || filter.overdue;
  const where: string[] = ['e.tenant_id = :tenantId', 'e.valid_to IS NULL'];
  if (matching) where.push(`EXISTS (SELECT 1 FROM ${CELLS} c WHERE ${cellWhere.join(' AND ')})`);
  if (worstColor) {
    const current = cellWhere.slice(0, 4).join(' AND ');
    where.push(
      `(SELECT c.color FROM ${CELLS} c WHERE ${current} ORDER BY ${SEVERITY_SQL} DESC LIMIT 1) = ANY(:colors)`,
    );
    // Its matching cells are then the worst ones.
    cellWhere.push(`c.color = ANY(:colors)`);
  }
  if (filter.entityType) {
    where.push('e.entity_type = :entityType');
    bindings.entityType = filter.entityType;
  }
  // Belonging to an operator or a lease: an edge to its vertex, or being it.
  const belongs = (edge: string, key: 'operator' | 'lease') => {
    where.push(
      `(e.entity_id = :${key} OR EXISTS (SELECT 1 FROM ${EDGES} b JOIN ${VERTICES} t ON t.id = b.to_id WHERE b.namespace = :namespace AND b.from_id = v.id AND b.label = '${edge}' AND t.entity_id = :${key}))`,
    );
    bindings[key] = filter[key];
  };
  if (filter.operator) belongs('OPERATED_BY', 'operator');
  if (filter.lease) belongs('LOCATED_IN', 'lease');
  if (filter.county) {
    where.push(`lower(v.properties->>'county') = lower(:county)`);
    bindings.county = filter.county;
  }
  const { rows } = await knex.raw(
    `SELECT e.entity_id, e.entity_type, COALESCE(e.name_prop, e.well_name_prop, e.entity_id) AS entity_name, v.properties->>'county' AS county,
            COALESCE(v.properties->>'operator', CASE WHEN e.entity_type = 'Operator' THEN e.name_prop END, ${operatorNameSql('v', ':namespace')}) AS operator,
            COALESCE(v.properties->>'lease', CASE WHEN e.entity_type = 'Lease' THEN e.name_prop END) AS lease,
            (SELECT coalesce(json_agg(json_build_object('domain', c.domain, 'color', c.color, 'reason', c.reason, 'due_date', c.due_date) ORDER BY c.due_date NULLS LAST, c.domain), '[]')
               FROM ${CELLS} c WHERE ${matching ? cellWhere.join(' AND ') : `${cellWhere.join(' AND ')} AND c.color = 'red'`}) AS cells
       FROM ${ENTITIES} e
       LEFT JOIN ${VERTICES} v ON v.namespace = :namespace AND v.entity_id = e.entity_id AND v.label = e.entity_type
      WHERE ${where.join(' AND ')}`,
    bindings,
  );
  const all = (rows as Array<Omit<ListedEntity, 'next_due'>>).map((r): ListedEntity => {
    const cells = r.cells.map((c) => ({ ...c, due_date: c.due_date ? isoDate(c.due_date) : null }));
    return {
      ...r,
      cells,
      next_due:
        cells
          .map((c) => c.due_date)
          .filter((d): d is string => !!d)
          .sort()[0] ?? null,
    };
  });
  all.sort(
    (a, b) =>
      (a.next_due ?? '9999').localeCompare(b.next_due ?? '9999') ||
      a.entity_name.localeCompare(b.entity_name) ||
      a.entity_id.localeCompare(b.entity_id),
  );
  const count = (keys: Array<string | null>) => {
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(k ?? '(none)', (counts.get(k ?? '(none)') ?? 0) + 1);
    return [...counts.entries()]
      .map(([key, n]) => ({ key, count: n }))
      .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
  };
  const types = count(all.map((r) => r.entity_type)).map((g) => ({ type: g.key, count: g.count }));
  const groups =
    groupBy === 'domain'
      ? count(all.flatMap((r) => [...new Set(r.cells.map((c) => c.domain))]))
      : count(all.map((r) => r[groupBy]));
  return { total: all.length, types, group_by: groupBy, groups, rows: all.slice(0, limit) };
}
