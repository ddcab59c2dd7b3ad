import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';

/**
 * An expert verdict on one agent turn: one stream per (tenant,
 * execution, captured-by user), so the upsert key is decided on the write side by the
 * stream's name. Each gesture is a CaptureRecorded carrying the score and only the
 * enrichment fields that gesture gave (null: not given, the earlier value stands). Snapshot
 * checks and score-mirror outcomes are events of the same stream.
 */
export const captureIdOf = (tenantId: string, executionId: string, userId: string) =>
  derivedUuid('evaluation.capture', tenantId, executionId, userId);

export const SNAPSHOT_STATUSES = ['linked', 'missing'] as const;
export type SnapshotStatus = (typeof SNAPSHOT_STATUSES)[number];
/** `skipped`: no mirror configured. `pending`: the mirror has not answered yet. */
export const MIRROR_STATUSES = ['skipped', 'pending', 'mirrored', 'failed'] as const;
export type MirrorStatus = (typeof MIRROR_STATUSES)[number];
/** Which check found (or did not find) the turn's events. */
export const SNAPSHOT_CHECKS = ['capture', 'retry', 'startup'] as const;
export type SnapshotCheck = (typeof SNAPSHOT_CHECKS)[number];

export const Score = z.union([z.literal(-1), z.literal(1)]);

export const CaptureEventSchemas = {
  CaptureRecorded: z.object({
    captureId: z.string(),
    executionId: z.string(),
    conversationId: z.string().nullable(),
    userId: z.string(),
    score: Score,
    expectedOutput: z.string().nullable(),
    note: z.string().nullable(),
    categoryTag: z.string().nullable(),
    mirrorStatus: z.enum(['skipped', 'pending']),
    recordedAt: z.string(),
  }),
  SnapshotLinked: z.object({
    check: z.enum(SNAPSHOT_CHECKS),
    conversationId: z.string().nullable(),
    checkedAt: z.string(),
  }),
  SnapshotMissing: z.object({ check: z.enum(SNAPSHOT_CHECKS), checkedAt: z.string() }),
  ScoreMirrored: z.object({ score: Score, mirroredAt: z.string() }),
  ScoreMirrorFailed: z.object({ score: Score, error: z.string(), failedAt: z.string() }),
};

export type CaptureEvent = EventsOf<typeof CaptureEventSchemas>;
export const readCaptureEvent = eventReader('evaluation capture', CaptureEventSchemas);
export const CAPTURE_EVENT_TYPES = Object.keys(CaptureEventSchemas) as CaptureEvent['type'][];

/** Decision state: bounded (the enrichment texts live in the read model and the events). */
export type CaptureState =
  | { status: 'none' }
  | {
      status: 'recorded';
      captureId: string;
      executionId: string;
      userId: string;
      score: -1 | 1;
      gestures: number;
      snapshot: SnapshotStatus | 'unchecked';
      mirror: MirrorStatus;
    };

export function evolveCapture(state: CaptureState, event: CaptureEvent): CaptureState {
  if (event.type === 'CaptureRecorded') {
    const d = event.data;
    const snapshot = state.status === 'recorded' ? state.snapshot : 'unchecked';
    const gestures = state.status === 'recorded' ? state.gestures + 1 : 1;
    return {
      status: 'recorded',
      captureId: d.captureId,
      executionId: d.executionId,
      userId: d.userId,
      score: d.score,
      gestures,
      snapshot,
      mirror: d.mirrorStatus,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'SnapshotLinked':
      return { ...state, snapshot: 'linked' };
    case 'SnapshotMissing':
      return state.snapshot === 'linked' ? state : { ...state, snapshot: 'missing' };
    case 'ScoreMirrored':
      return { ...state, mirror: 'mirrored' };
    case 'ScoreMirrorFailed':
      return { ...state, mirror: 'failed' };
  }
}

export const captureAggregate: Aggregate<CaptureState, CaptureEvent> = {
  stream: (tenantId, captureId) => `evaluation.capture-${tenantId}-${captureId}`,
  eventTypes: CAPTURE_EVENT_TYPES,
  initialState: { status: 'none' },
  evolve: evolveCapture,
  read: readCaptureEvent,
};

/** `frozen` when the turn's events are linked (replay from the log), else `live`. */
export const replayModeOf = (snapshot: SnapshotStatus | 'unchecked') => (snapshot === 'linked' ? 'frozen' : 'live');
