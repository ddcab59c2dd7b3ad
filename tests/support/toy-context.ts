import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import type { ContextModule, PlatformDeps } from '../../src/platform/context-module';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { parseBody, parseParams } from '../../src/platform/http/validation';
import type { Projector } from '../../src/platform/projection-runner/projector';

/**
 * A toy context that exercises the whole spine in tests: a decider, a projector, a query
 * and a router, shaped like a real context but kept out of src/.
 */
export type NoteEvent =
  | { type: 'NoteCreated'; data: { noteId: string; title: string } }
  | { type: 'NoteRenamed'; data: { title: string } }
  | { type: 'NoteArchived'; data: Record<string, never> };

export type NoteState =
  { status: 'none' } | { status: 'active'; title: string } | { status: 'archived'; title: string };

export type NoteCommand =
  | { type: 'CreateNote'; noteId: string; title: string }
  | { type: 'RenameNote'; title: string }
  | { type: 'ArchiveNote' };

export const noteDecider: Decider<NoteCommand, NoteState, NoteEvent> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    switch (event.type) {
      case 'NoteCreated':
        return { status: 'active', title: event.data.title };
      case 'NoteRenamed':
        return state.status === 'none' ? state : { ...state, title: event.data.title };
      case 'NoteArchived':
        return state.status === 'none' ? state : { status: 'archived', title: state.title };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateNote':
        if (state.status !== 'none') throw new Conflict('note exists already');
        return [{ type: 'NoteCreated', data: { noteId: command.noteId, title: command.title } }];
      case 'RenameNote':
        if (state.status === 'none') throw new NotFound('Note not found');
        if (state.status === 'archived') throw new Conflict('an archived note cannot be renamed');
        if (state.title === command.title) return [];
        return [{ type: 'NoteRenamed', data: { title: command.title } }];
      case 'ArchiveNote':
        if (state.status === 'none') throw new NotFound('Note not found');
        return state.status === 'archived' ? [] : [{ type: 'NoteArchived', data: {} }];
      default:
        return assertNever(command);
    }
  },
};

export const noteStream = (tenantId: string, id: string) => `toy.note-${tenantId}-${id}`;

export function notesProjector(version = 1, fail?: (event: { type: string; data: unknown }) => boolean): Projector {
  return {
    name: 'toy_notes',
    version,
    tables: ['toy_notes'],
    eventTypes: ['NoteCreated', 'NoteRenamed', 'NoteArchived'],
    async createTables(knex) {
      await knex.schema.createTable('toy_notes', (t) => {
        t.uuid('id').primary();
        t.text('tenant_id').notNullable();
        t.text('title').notNullable();
        t.text('status').notNullable();
        t.integer('renames').notNullable().defaultTo(0);
      });
    },
    async apply(trx, event) {
      if (fail?.(event)) throw new Error(`projector failure injected at ${event.type}`);
      const id = event.stream.slice(-36);
      switch (event.type) {
        case 'NoteCreated': {
          const data = event.data as { noteId: string; title: string };
          await trx('toy_notes').insert({
            id: data.noteId,
            tenant_id: event.metadata.tenantId,
            title: data.title,
            status: 'active',
          });
          break;
        }
        case 'NoteRenamed':
          await trx('toy_notes')
            .where({ id })
            .update({ title: (event.data as { title: string }).title, renames: trx.raw('renames + 1') });
          break;
        case 'NoteArchived':
          await trx('toy_notes').where({ id }).update({ status: 'archived' });
          break;
      }
    },
  };
}

const TOY_TENANT = 'toy-tenant';

function toyRouter({ handle, knex }: PlatformDeps): Router {
  const router = Router();
  const context = { tenantId: TOY_TENANT, actorId: 'toy-user' };
  router.post('/toy/notes', async (req, res) => {
    const body = parseBody(req, z.object({ title: z.string().min(1).max(50) }));
    const noteId = randomUUID();
    await handle(
      noteDecider,
      noteStream(TOY_TENANT, noteId),
      { type: 'CreateNote', noteId, title: body.title },
      context,
    );
    res.status(201).json({ id: noteId });
  });
  router.patch('/toy/notes/:id', async (req, res) => {
    const { id } = parseParams(req, z.object({ id: z.string().uuid() }));
    const body = parseBody(req, z.object({ title: z.string().min(1).max(50) }));
    await handle(noteDecider, noteStream(TOY_TENANT, id), { type: 'RenameNote', title: body.title }, context);
    res.json(await knex('toy_notes').where({ id }).first());
  });
  router.get('/toy/notes/:id', async (req, res) => {
    const { id } = parseParams(req, z.object({ id: z.string().uuid() }));
    const row = await knex('toy_notes').where({ id }).first();
    if (!row) throw new NotFound('Note not found');
    res.json(row);
  });
  router.get('/toy/boom', async () => {
    throw new Error('database password is hunter2 at /secret/path.ts:12');
  });
  return router;
}

export function toyContext(
  options: { projectorVersion?: number; fail?: (event: { type: string; data: unknown }) => boolean } = {},
): ContextModule {
  return {
    name: 'toy',
    projectors: [notesProjector(options.projectorVersion, options.fail)],
    publicRouter: toyRouter,
  };
}
