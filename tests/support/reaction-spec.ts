import { expect } from 'chai';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { SpecEvent } from './specs';

/**
 * Reactor specs, read like decider specs: given this recorded event, the reaction's pure
 * mapping issues this command (or nothing).
 *
 *   reactionSpec(secretCleanupCommand).given({ stream, type: 'CredentialSet', data, metadata: { tenantId } }).then({ type: 'DeleteSupersededSecret', … })
 */
export function reactionSpec<Command>(mapping: (event: RecordedEvent) => Command | null) {
  return {
    given(event: SpecEvent & { id?: string }) {
      const recorded: RecordedEvent = {
        id: event.id ?? '00000000-0000-4000-8000-000000000001',
        stream: event.stream,
        revision: 0n,
        position: { commit: 1n, prepare: 1n },
        type: event.type,
        data: event.data,
        metadata: {
          tenantId: 't1',
          actorId: 'u1',
          correlationId: 'c1',
          causationId: 'c1',
          ...event.metadata,
        } as RecordedEvent['metadata'],
        recordedAt: event.recordedAt ?? new Date('2026-03-03T10:00:00Z'),
      };
      return {
        then(expected: Command) {
          expect(mapping(recorded)).to.deep.equal(expected);
        },
        thenNothing() {
          expect(mapping(recorded)).to.equal(null);
        },
      };
    },
  };
}
