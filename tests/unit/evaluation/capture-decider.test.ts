import { given } from '../../support/given';
import { recordCaptureDecider, type RecordCapture } from '../../../commands/evaluation/record-capture';
import { recheckSnapshotDecider } from '../../../commands/evaluation/recheck-snapshot';
import { recordMirrorOutcomeDecider } from '../../../commands/evaluation/record-mirror-outcome';
import type { CaptureEvent } from '../../../streams/evaluation/capture';

const at = '2026-01-15T12:00:00.000Z';
const gesture = (over: Partial<RecordCapture> = {}): RecordCapture => ({
  type: 'RecordCapture',
  captureId: 'cap-1',
  executionId: 'exec-1',
  conversationId: 'conv-1',
  userId: 'user-1',
  score: 1,
  expectedOutput: null,
  note: null,
  categoryTag: null,
  snapshot: { found: true, conversationId: 'conv-1' },
  mirrorConfigured: false,
  ...over,
});
const recorded = (over: Partial<Extract<CaptureEvent, { type: 'CaptureRecorded' }>['data']> = {}): CaptureEvent => ({
  type: 'CaptureRecorded',
  data: {
    captureId: 'cap-1',
    executionId: 'exec-1',
    conversationId: 'conv-1',
    userId: 'user-1',
    score: 1,
    expectedOutput: null,
    note: null,
    categoryTag: null,
    mirrorStatus: 'skipped',
    recordedAt: at,
    ...over,
  },
});

describe('eval capture decider', () => {
  it('a first gesture on a turn in the log records it and links the snapshot', () => {
    given(recordCaptureDecider)
      .when(gesture())
      .then([
        recorded(),
        { type: 'SnapshotLinked', data: { check: 'capture', conversationId: 'conv-1', checkedAt: at } },
      ]);
  });

  it('a gesture on a turn not in the log records it as missing; a configured mirror starts pending', () => {
    given(recordCaptureDecider)
      .when(gesture({ snapshot: { found: false }, mirrorConfigured: true }))
      .then([
        recorded({ mirrorStatus: 'pending' }),
        { type: 'SnapshotMissing', data: { check: 'capture', checkedAt: at } },
      ]);
  });

  it('a later gesture on a linked capture records only the gesture (only what it gave)', () => {
    given(recordCaptureDecider, [
      recorded({ expectedOutput: 'x' }),
      { type: 'SnapshotLinked', data: { check: 'capture', conversationId: 'conv-1', checkedAt: at } },
    ])
      .when(gesture({ score: -1 }))
      .then([recorded({ score: -1 })]);
  });

  it('the retry links a missing capture, or records that it still found nothing', () => {
    const missing = [
      recorded(),
      { type: 'SnapshotMissing', data: { check: 'capture', checkedAt: at } },
    ] as CaptureEvent[];
    given(recheckSnapshotDecider, missing)
      .when({ type: 'RecheckSnapshot', check: 'retry', found: true, conversationId: 'conv-1' })
      .then([{ type: 'SnapshotLinked', data: { check: 'retry', conversationId: 'conv-1', checkedAt: at } }]);
    given(recheckSnapshotDecider, missing)
      .when({ type: 'RecheckSnapshot', check: 'retry', found: false, conversationId: null })
      .then([{ type: 'SnapshotMissing', data: { check: 'retry', checkedAt: at } }]);
  });

  it('the start-up pass records only what it links, and never touches a linked capture', () => {
    const missing = [
      recorded(),
      { type: 'SnapshotMissing', data: { check: 'capture', checkedAt: at } },
    ] as CaptureEvent[];
    given(recheckSnapshotDecider, missing)
      .when({ type: 'RecheckSnapshot', check: 'startup', found: false, conversationId: null })
      .thenNothing();
    given(recheckSnapshotDecider, [
      recorded(),
      { type: 'SnapshotLinked', data: { check: 'capture', conversationId: null, checkedAt: at } },
    ])
      .when({ type: 'RecheckSnapshot', check: 'startup', found: true, conversationId: null })
      .thenNothing();
  });

  it('mirror outcomes are recorded with the score they mirrored', () => {
    given(recordMirrorOutcomeDecider, [recorded({ mirrorStatus: 'pending' })])
      .when({ type: 'RecordMirrorOutcome', score: 1, ok: true })
      .then([{ type: 'ScoreMirrored', data: { score: 1, mirroredAt: at } }]);
    given(recordMirrorOutcomeDecider, [recorded({ mirrorStatus: 'pending' })])
      .when({ type: 'RecordMirrorOutcome', score: 1, ok: false, error: 'langfuse answered 500' })
      .then([{ type: 'ScoreMirrorFailed', data: { score: 1, error: 'langfuse answered 500', failedAt: at } }]);
  });
});
