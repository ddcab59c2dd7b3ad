import type { Knex } from 'knex';
import { CAPTURES_TABLE } from '../../projections/evaluation/captures';

export interface CaptureRow {
  tenant_id: string;
  capture_id: string;
  execution_id: string;
  conversation_id: string | null;
  user_id: string;
  score: number;
  expected_output: string | null;
  note: string | null;
  category_tag: string | null;
  snapshot_status: 'linked' | 'missing';
  mirror_status: string;
  created_at: Date;
}

/** GET /eval/captures: only the caller's own captures of one conversation, oldest first. */
export async function listOwnCaptures(knex: Knex, tenantId: string, userId: string, conversationId: string) {
  const rows: CaptureRow[] = await knex(CAPTURES_TABLE)
    .where({ tenant_id: tenantId, user_id: userId, conversation_id: conversationId })
    .orderBy([{ column: 'created_at' }, { column: 'capture_id' }]);
  return {
    captures: rows.map((r) => ({
      execution_id: r.execution_id,
      score: r.score,
      expected_output: r.expected_output,
      note: r.note,
      category_tag: r.category_tag,
      snapshot_status: r.snapshot_status,
      mirror_status: r.mirror_status,
    })),
    total: rows.length,
  };
}

/** GET /eval/metrics: the tenant's counts. */
export async function captureMetrics(knex: Knex, tenantId: string) {
  const row = await knex(CAPTURES_TABLE)
    .where({ tenant_id: tenantId })
    .first(
      knex.raw('count(*)::int as total'),
      knex.raw("count(*) filter (where snapshot_status = 'missing')::int as missing"),
      knex.raw("count(*) filter (where mirror_status = 'failed')::int as mirror_failed"),
      knex.raw("count(*) filter (where mirror_status = 'pending')::int as mirror_pending"),
    );
  return {
    total: row?.total ?? 0,
    missing: row?.missing ?? 0,
    mirror_failed: row?.mirror_failed ?? 0,
    mirror_pending: row?.mirror_pending ?? 0,
  };
}

/** Every capture whose snapshot is still missing, across tenants (the start-up re-link pass). */
export async function capturesWithMissingSnapshots(
  knex: Knex,
): Promise<Array<Pick<CaptureRow, 'tenant_id' | 'capture_id' | 'execution_id'>>> {
  return knex(CAPTURES_TABLE)
    .where({ snapshot_status: 'missing' })
    .select('tenant_id', 'capture_id', 'execution_id')
    .orderBy('created_at');
}

/** The cases an eval run replays: the tenant's captures, optionally of one category tag. */
export async function captureCases(knex: Knex, tenantId: string, tag?: string): Promise<CaptureRow[]> {
  const query = knex(CAPTURES_TABLE)
    .where({ tenant_id: tenantId })
    .orderBy([{ column: 'created_at' }, { column: 'capture_id' }]);
  if (tag) query.andWhere({ category_tag: tag });
  return query;
}

/** Captures whose score mirror never answered (the process stopped mid-way): the start-up pass sends them again. */
export async function capturesWithPendingMirror(knex: Knex): Promise<
  Array<
    Pick<CaptureRow, 'tenant_id' | 'capture_id' | 'execution_id' | 'user_id' | 'score' | 'note' | 'category_tag'> & {
      gestures: number;
    }
  >
> {
  return knex(CAPTURES_TABLE)
    .where({ mirror_status: 'pending' })
    .select('tenant_id', 'capture_id', 'execution_id', 'user_id', 'score', 'note', 'category_tag', 'gestures')
    .orderBy('updated_at');
}
