import type { Knex } from 'knex';
import { type Position, START } from '../eventstore/types';

export const CHECKPOINTS_TABLE = 'projection_checkpoints';

export async function createCheckpointsTable(knex: Knex): Promise<void> {
  await knex.schema.createTable(CHECKPOINTS_TABLE, (t) => {
    t.text('name').primary();
    t.integer('version').notNullable();
    // The (commit, prepare) pair: positions alone can commit out of order.
    t.bigint('commit_position').notNullable();
    t.bigint('prepare_position').notNullable();
    t.bigint('events_applied').notNullable().defaultTo(0);
    t.text('status').notNullable().defaultTo('running');
    t.text('last_error');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export interface CheckpointRow {
  name: string;
  version: number;
  position: Position;
  eventsApplied: bigint;
  status: string;
  lastError: string | null;
  updatedAt: Date;
}

function fromRow(row: Record<string, unknown>): CheckpointRow {
  return {
    name: String(row.name),
    version: Number(row.version),
    position: { commit: BigInt(row.commit_position as string), prepare: BigInt(row.prepare_position as string) },
    eventsApplied: BigInt(row.events_applied as string),
    status: String(row.status),
    lastError: (row.last_error as string | null) ?? null,
    updatedAt: row.updated_at as Date,
  };
}

export async function readCheckpoints(knex: Knex): Promise<CheckpointRow[]> {
  const rows = await knex(CHECKPOINTS_TABLE).select('*').orderBy('name');
  return rows.map(fromRow);
}

export async function readCheckpoint(knex: Knex, name: string): Promise<CheckpointRow | undefined> {
  const row = await knex(CHECKPOINTS_TABLE).where({ name }).first();
  return row ? fromRow(row) : undefined;
}

export async function saveCheckpoint(
  knex: Knex,
  name: string,
  fields: {
    version: number;
    position: Position;
    applied?: number;
    status?: string;
    lastError?: string | null;
    reset?: boolean;
  },
): Promise<void> {
  const applied = fields.applied ?? 0;
  await knex(CHECKPOINTS_TABLE)
    .insert({
      name,
      version: fields.version,
      commit_position: fields.position.commit.toString(),
      prepare_position: fields.position.prepare.toString(),
      events_applied: applied,
      status: fields.status ?? 'running',
      last_error: fields.lastError ?? null,
      updated_at: knex.fn.now(),
    })
    .onConflict('name')
    .merge({
      version: fields.version,
      commit_position: fields.position.commit.toString(),
      prepare_position: fields.position.prepare.toString(),
      events_applied: fields.reset ? applied : knex.raw(`${CHECKPOINTS_TABLE}.events_applied + ?`, [applied]),
      status: fields.status ?? 'running',
      last_error: fields.lastError ?? null,
      updated_at: knex.fn.now(),
    });
}

export const INITIAL_POSITION = START;

/** A batch found the checkpoint elsewhere than where its lane last read: another runner moved it. */
export class CheckpointMoved extends Error {
  readonly name = 'CheckpointMoved';
}

/**
 * Moves a checkpoint from `from` to `to` only if it still stands at `from` (compare and
 * set). Called first in a batch's transaction: the row lock it takes makes a second runner
 * with the same batch wait, then fail, so no batch is applied twice and no checkpoint moves
 * backwards, whoever believes it leads.
 */
export async function advanceCheckpoint(
  knex: Knex,
  name: string,
  fields: { version: number; from: Position; to: Position; applied: number },
): Promise<void> {
  const moved = await knex(CHECKPOINTS_TABLE)
    .where({
      name,
      version: fields.version,
      commit_position: fields.from.commit.toString(),
      prepare_position: fields.from.prepare.toString(),
    })
    .update({
      commit_position: fields.to.commit.toString(),
      prepare_position: fields.to.prepare.toString(),
      events_applied: knex.raw(`${CHECKPOINTS_TABLE}.events_applied + ?`, [fields.applied]),
      status: 'running',
      last_error: null,
      updated_at: knex.fn.now(),
    });
  if (moved !== 1)
    throw new CheckpointMoved(`checkpoint of ${name} is no longer at ${fields.from.commit}/${fields.from.prepare}`);
}

/** Records a lane's trouble without moving its position. */
export async function markCheckpoint(
  knex: Knex,
  name: string,
  status: string,
  lastError: string | null,
): Promise<void> {
  await knex(CHECKPOINTS_TABLE).where({ name }).update({ status, last_error: lastError, updated_at: knex.fn.now() });
}
