import { randomUUID } from 'node:crypto';
import type { ContextModule, Reactor } from '../../src/platform/context-module';
import type { TestPlatform } from './platform';
import { noteStream, notesProjector } from './toy-context';

/**
 * A toy context whose lanes fail on purpose until they are "fixed": its projector on notes
 * titled `poison-projection…`, its reactor (`toy.flaky`) on notes titled `poison-reaction…`.
 * After five attempts the runtime parks the event as a real dead letter, which a retry after
 * `fix()` resolves.
 */
export function flakyLanes(): {
  context: ContextModule;
  fix(): void;
  note(t: TestPlatform, title: string): Promise<string>;
} {
  let broken = true;
  const reactor: Reactor = {
    name: 'toy.flaky',
    handles: ['NoteCreated'],
    react(event) {
      if (broken && String((event.data as { title?: string }).title).startsWith('poison-reaction'))
        throw new Error('the flaky reactor refuses this note');
      return [];
    },
  };
  const projector = notesProjector(
    1,
    (event) => broken && String((event.data as { title?: string }).title).startsWith('poison-projection'),
  );
  return {
    context: { name: 'toy', projectors: [projector], reactors: [reactor] },
    fix: () => (broken = false),
    async note(t, title) {
      const id = randomUUID();
      const metadata = { tenantId: 'toy-tenant', actorId: 'toy-user', correlationId: id, causationId: id };
      await t.deps.store.append(noteStream('toy-tenant', id), [
        { type: 'NoteCreated', data: { noteId: id, title }, metadata },
      ]);
      return id;
    },
  };
}
