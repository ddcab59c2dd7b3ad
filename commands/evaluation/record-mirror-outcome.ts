import type { PlatformDeps } from '../../src/platform/context-module';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { type CaptureEvent, type CaptureState, captureAggregate } from '../../streams/evaluation/capture';

/** What the external score mirror answered for the capture's current score. */
export type RecordMirrorOutcome =
  | { type: 'RecordMirrorOutcome'; score: -1 | 1; ok: true }
  | { type: 'RecordMirrorOutcome'; score: -1 | 1; ok: false; error: string };

export function decideRecordMirrorOutcome(
  command: RecordMirrorOutcome,
  state: CaptureState,
  now: Date,
): CaptureEvent[] {
  switch (command.type) {
    case 'RecordMirrorOutcome': {
      if (state.status !== 'recorded') return [];
      const at = now.toISOString();
      return command.ok
        ? [{ type: 'ScoreMirrored', data: { score: command.score, mirroredAt: at } }]
        : [
            {
              type: 'ScoreMirrorFailed',
              data: { score: command.score, error: command.error.slice(0, 500), failedAt: at },
            },
          ];
    }
    default:
      return assertNever(command.type);
  }
}

export const recordMirrorOutcomeDecider: Decider<RecordMirrorOutcome, CaptureState, CaptureEvent> = {
  ...captureAggregate,
  decide: decideRecordMirrorOutcome,
};

export async function recordMirrorOutcome(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  captureId: string,
  command: RecordMirrorOutcome,
) {
  return deps.handle(
    recordMirrorOutcomeDecider,
    captureAggregate.stream(context.tenantId, captureId),
    command,
    context,
  );
}
