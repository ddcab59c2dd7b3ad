import { z } from 'zod';
import type { PlatformDeps } from '../../src/platform/context-module';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { NotFound } from '../../src/platform/domain-errors';
import {
  type CaptureEvent,
  type CaptureState,
  captureAggregate,
  captureIdOf,
  Score,
} from '../../streams/evaluation/capture';
import { findTurnSnapshot } from './turn-snapshot';

/** POST /eval/captures body: a bare score is valid; identity never comes from here. */
export const RecordCaptureBody = z.object({
  execution_id: z.string().min(1).max(200),
  conversation_id: z.string().min(1).max(200).optional(),
  score: Score,
  expected_output: z.string().max(50_000).optional(),
  note: z.string().max(10_000).optional(),
  category_tag: z.string().min(1).max(100).optional(),
});
export type RecordCaptureBody = z.infer<typeof RecordCaptureBody>;

export type RecordCapture = {
  type: 'RecordCapture';
  captureId: string;
  executionId: string;
  conversationId: string | null;
  userId: string;
  score: -1 | 1;
  expectedOutput: string | null;
  note: string | null;
  categoryTag: string | null;
  /** The once-per-gesture check of the turn's events: found (with its conversation) or not. */
  snapshot: { found: true; conversationId: string | null } | { found: false };
  mirrorConfigured: boolean;
};

export function decideRecordCapture(command: RecordCapture, state: CaptureState, now: Date): CaptureEvent[] {
  switch (command.type) {
    case 'RecordCapture': {
      const at = now.toISOString();
      const events: CaptureEvent[] = [
        {
          type: 'CaptureRecorded',
          data: {
            captureId: command.captureId,
            executionId: command.executionId,
            conversationId: command.conversationId,
            userId: command.userId,
            score: command.score,
            expectedOutput: command.expectedOutput,
            note: command.note,
            categoryTag: command.categoryTag,
            mirrorStatus: command.mirrorConfigured ? 'pending' : 'skipped',
            recordedAt: at,
          },
        },
      ];
      const linked = state.status === 'recorded' && state.snapshot === 'linked';
      if (!linked) {
        events.push(
          command.snapshot.found
            ? {
                type: 'SnapshotLinked',
                data: { check: 'capture', conversationId: command.snapshot.conversationId, checkedAt: at },
              }
            : { type: 'SnapshotMissing', data: { check: 'capture', checkedAt: at } },
        );
      }
      return events;
    }
    default:
      return assertNever(command.type);
  }
}

export const recordCaptureDecider: Decider<RecordCapture, CaptureState, CaptureEvent> = {
  ...captureAggregate,
  decide: decideRecordCapture,
};

/**
 * Checks the turn once (its first event names its actor: another user's execution answers
 * 404, like a missing one would to them), then records the gesture. The turn's own
 * conversation wins over the body's.
 */
export async function recordCapture(
  deps: Pick<PlatformDeps, 'handle' | 'store'>,
  context: CommandContext,
  body: RecordCaptureBody,
  mirrorConfigured: boolean,
) {
  const { tenantId, actorId: userId } = context;
  const turn = await findTurnSnapshot(deps.store, tenantId, body.execution_id);
  if (turn && turn.userId !== userId) throw new NotFound(`No execution ${body.execution_id}`);
  const captureId = captureIdOf(tenantId, body.execution_id, userId);
  const command: RecordCapture = {
    type: 'RecordCapture',
    captureId,
    executionId: body.execution_id,
    conversationId: turn?.conversationId ?? body.conversation_id ?? null,
    userId,
    score: body.score,
    expectedOutput: body.expected_output ?? null,
    note: body.note ?? null,
    categoryTag: body.category_tag ?? null,
    snapshot: turn ? { found: true, conversationId: turn.conversationId } : { found: false },
    mirrorConfigured,
  };
  const result = await deps.handle(
    recordCaptureDecider,
    captureAggregate.stream(tenantId, captureId),
    command,
    context,
  );
  return { captureId, state: result.state };
}
