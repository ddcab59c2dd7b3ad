import { distance } from 'fastest-levenshtein';
import type { Knex } from 'knex';
import { VERTICES } from '../../projections/graph/property-graph';
import { operatorNameSql } from './operator-of';

/**
 * Finds the wells, leases and operators a person means, however they name them: the graph
 * uuid, the entity id (whatever it is: an API number, a lease id, `P5-…`, or an id of the
 * caller's own choosing), a well's API number (with or without dashes), an operator's P-5
 * number, or the name (case-insensitive; whole words of a longer name; then a name a typo
 * or two away). The first of those ways that finds anything answers; several matches of
 * the same way are all returned, so a caller can ask which one was meant.
 */
export const FINDABLE_LABELS = ['Well', 'Lease', 'Operator'] as const;

export type MatchKind = 'id' | 'api_number' | 'p5_number' | 'name' | 'words' | 'fuzzy';

export interface EntityMatch {
  vertex_id: string;
  label: string;
  entity_id: string;
  name: string;
  api_number: string | null;
  county: string | null;
  operator: string | null;
  match: MatchKind;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A Texas API number as the regulator prints it (42-CCC-UUUUU), from any spacing of its ten digits. */
export function apiNumberOf(reference: string): string | null {
  const digits = reference.replace(/[\s-]/g, '');
  return /^\d{10}$/.test(digits) ? `${digits.slice(0, 2)}-${digits.slice(2, 5)}-${digits.slice(5)}` : null;
}
/** Lower case, punctuation as spaces: "Baker 11 #1H" and "BAKER 11 1H" compare equal. */
export const normalName = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

const SELECT = `v.id AS vertex_id, v.label, v.entity_id,
  COALESCE(v.properties->>'name', v.properties->>'well_name', v.entity_id) AS name,
  v.properties->>'api_number' AS api_number, v.properties->>'county' AS county,
  COALESCE(v.properties->>'operator', ${operatorNameSql('v', 'v.namespace')}) AS operator`;
const NAME_SQL = `lower(COALESCE(v.properties->>'name', v.properties->>'well_name', ''))`;
const NORMAL_NAME_SQL = `trim(regexp_replace(${NAME_SQL}, '[^a-z0-9]+', ' ', 'g'))`;
/** Names read for the typo search at most: beyond it a portfolio is searched by words only. */
const FUZZY_CANDIDATES = 25_000;

export async function findEntities(
  knex: Knex,
  namespace: string,
  reference: string,
  labels: readonly string[] = FINDABLE_LABELS,
  limit = 10,
): Promise<EntityMatch[]> {
  const ref = reference
    .trim()
    .replace(/^["'“]+|["'”.?!,]+$/g, '')
    .replace(/\s+/g, ' ');
  if (ref === '' || labels.length === 0) return [];
  const run = async (where: string, bindings: Knex.RawBinding[], match: MatchKind) => {
    const { rows } = await knex.raw(
      `SELECT ${SELECT} FROM ${VERTICES} v WHERE v.namespace = ? AND v.label = ANY(?) AND (${where}) ORDER BY v.label, v.entity_id LIMIT ?`,
      [namespace, [...labels], ...bindings, limit],
    );
    return (rows as Omit<EntityMatch, 'match'>[]).map((r) => ({ ...r, match }));
  };
  // By id: the uuid, the entity id as written or upper-cased (lease ids and P-5 ids are upper case).
  const ids = [...new Set([ref, ref.toUpperCase()])];
  const byId = await run(
    `v.entity_id = ANY(?)${UUID.test(ref) ? ' OR v.id = ?' : ''}`,
    [ids, ...(UUID.test(ref) ? [ref.toLowerCase()] : [])],
    'id',
  );
  if (byId.length > 0) return byId;
  const api = apiNumberOf(ref);
  if (api && labels.includes('Well')) {
    const byApi = await run(`v.label = 'Well' AND v.properties->>'api_number' = ?`, [api], 'api_number');
    if (byApi.length > 0) return byApi;
  }
  const p5 = /^(?:P-?5\s*(?:#|no\.?)?\s*)?(\d{4,6})$/i.exec(ref)?.[1];
  if (p5 && labels.includes('Operator')) {
    const byP5 = await run(
      `v.label = 'Operator' AND (v.properties->>'p5_number' = ? OR v.entity_id = ?)`,
      [p5, `P5-${p5}`],
      'p5_number',
    );
    if (byP5.length > 0) return byP5;
  }
  const normal = normalName(ref);
  if (normal === '') return [];
  const byName = await run(`${NORMAL_NAME_SQL} = ?`, [normal], 'name');
  if (byName.length > 0) return byName;
  // Whole words of a longer name: "BAKER 11" is in "BAKER 11 1H", not in "BAKER 110".
  const byWords = await run(`' ' || ${NORMAL_NAME_SQL} || ' ' LIKE ?`, [`% ${normal.replace(/[%_]/g, '')} %`], 'words');
  if (byWords.length > 0) return byWords;
  return fuzzy(knex, namespace, normal, labels, limit, run);
}

/** Names a few edits away (one per five characters, at least one), closest first. */
async function fuzzy(
  knex: Knex,
  namespace: string,
  normal: string,
  labels: readonly string[],
  limit: number,
  run: (where: string, bindings: Knex.RawBinding[], match: MatchKind) => Promise<EntityMatch[]>,
) {
  const { rows } = await knex.raw(
    `SELECT v.id, ${NORMAL_NAME_SQL} AS name FROM ${VERTICES} v WHERE v.namespace = ? AND v.label = ANY(?) LIMIT ?`,
    [namespace, [...labels], FUZZY_CANDIDATES],
  );
  const allowed = Math.max(1, Math.floor(normal.length / 5));
  const close = (rows as Array<{ id: string; name: string }>)
    .map((r) => ({ id: r.id, d: distance(normal, r.name) }))
    .filter((r) => r.d <= allowed);
  if (close.length === 0) return [];
  const best = Math.min(...close.map((r) => r.d));
  const ids = close.filter((r) => r.d === best).map((r) => r.id);
  return run('v.id = ANY(?::uuid[])', [ids], 'fuzzy');
}
