import type { PlatformDeps } from '../../src/platform/context-module';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import {
  type CaptureEvent,
  type CaptureState,
  captureAggregate,
  type SnapshotCheck,
} from '../../streams/evaluation/capture';

/** A later look for the turn's events: the retry after about 2 s, or the start-up re-link pass. */
export type RecheckSnapshot = {
  type: 'RecheckSnapshot';
  check: Exclude<SnapshotCheck, 'capture'>;
  found: boolean;
  conversationId: string | null;
};

export function decideRecheckSnapshot(command: RecheckSnapshot, state: CaptureState, now: Date): CaptureEvent[] {
  switch (command.type) {
    case 'RecheckSnapshot': {
      // Linked stays linked; an unknown capture has nothing to link.
      if (state.status !== 'recorded' || state.snapshot === 'linked') return [];
      const checkedAt = now.toISOString();
      if (command.found)
        return [
          { type: 'SnapshotLinked', data: { check: command.check, conversationId: command.conversationId, checkedAt } },
        ];
      // The start-up pass records only what it links; the retry records its miss.
      return command.check === 'retry' ? [{ type: 'SnapshotMissing', data: { check: 'retry', checkedAt } }] : [];
    }
    default:
      return assertNever(command.type);
  }
}

export const recheckSnapshotDecider: Decider<RecheckSnapshot, CaptureState, CaptureEvent> = {
  ...captureAggregate,
  decide: decideRecheckSnapshot,
};

export async function recheckSnapshot(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  captureId: string,
  command: RecheckSnapshot,
) {
  return deps.handle(recheckSnapshotDecider, captureAggregate.stream(context.tenantId, captureId), command, context);
}
