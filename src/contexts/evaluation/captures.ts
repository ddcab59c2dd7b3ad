import type { CommandContext } from '../../platform/command-handling/command-handler';
import type { PlatformDeps } from '../../platform/context-module';
import { withScope } from '../../platform/http/request-scope';
import { SYSTEM_USER_ID } from '../../../streams/identity/system-accounts';
import { replayModeOf } from '../../../streams/evaluation/capture';
import { recordCapture, type RecordCaptureBody } from '../../../commands/evaluation/record-capture';
import { recheckSnapshot } from '../../../commands/evaluation/recheck-snapshot';
import { recordMirrorOutcome } from '../../../commands/evaluation/record-mirror-outcome';
import { capturesWithMissingSnapshots, capturesWithPendingMirror } from '../../../queries/evaluation/captures';
import { mirrorScore } from './langfuse-mirror';
import { findTurnSnapshot } from '../../../commands/evaluation/turn-snapshot';

/**
 * POST /eval/captures end to end: the gesture is recorded (the only step that
 * may fail the request), then the score is mirrored when a mirror is configured (its outcome
 * an event; a failure only shows in `mirror_status`), and a missing snapshot is looked for
 * once more about 2 s later in the background (the retry's outcome is an event too).
 */
export interface CaptureService {
  capture(context: CommandContext, body: RecordCaptureBody): Promise<CaptureView>;
  /** The start-up re-link pass: every capture still `missing` whose turn now exists is linked. */
  relinkMissing(): Promise<{ checked: number; linked: number }>;
  /** Start-up: scores whose mirror never answered (a stop mid-way) are sent again, when a mirror is configured. */
  remirrorPending(): Promise<{ sent: number; mirrored: number }>;
  /** Cancels pending retries (platform stop). */
  stop(): void;
  /** Resolves once every retry scheduled so far has run (tests, orderly shutdown). */
  settled(): Promise<void>;
}

export interface CaptureView {
  id: string;
  execution_id: string;
  score: -1 | 1;
  snapshot_status: 'linked' | 'missing';
  mirror_status: string;
  replay_mode: 'frozen' | 'live';
}

export function createCaptureService(deps: PlatformDeps): CaptureService {
  const { config, logger } = deps;
  const langfuse = config.evaluation.langfuse;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  let stopped = false;

  function scheduleRetry(context: CommandContext, captureId: string, executionId: string) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (stopped) return;
      // Outside the request's scope: its Idempotency-Key and counters are not the retry's.
      const task = withScope({}, async () => {
        const turn = await findTurnSnapshot(deps.store, context.tenantId, executionId);
        await recheckSnapshot(deps, context, captureId, {
          type: 'RecheckSnapshot',
          check: 'retry',
          found: turn !== null,
          conversationId: turn?.conversationId ?? null,
        });
      })
        .catch((err) =>
          logger.warn({ err, captureId }, 'eval capture: snapshot retry failed; the start-up pass will look again'),
        )
        .finally(() => running.delete(task));
      running.add(task);
    }, config.evaluation.snapshotRetryMs);
    timer.unref();
    timers.add(timer);
  }

  return {
    async capture(context, body) {
      const { captureId, state } = await recordCapture(deps, context, body, langfuse !== null);
      if (state.status !== 'recorded') throw new Error('capture not recorded');
      let mirror: string = state.mirror;
      if (langfuse) {
        const result = await mirrorScore(langfuse, {
          captureId,
          executionId: body.execution_id,
          score: body.score,
          note: body.note ?? null,
          categoryTag: body.category_tag ?? null,
          gesture: state.gestures,
          at: deps.clock(),
        });
        if (!result.ok) logger.warn({ captureId, error: result.error }, 'eval capture: score mirror failed');
        try {
          const after = await recordMirrorOutcome(
            deps,
            context,
            captureId,
            result.ok
              ? { type: 'RecordMirrorOutcome', score: body.score, ok: true }
              : { type: 'RecordMirrorOutcome', score: body.score, ok: false, error: result.error },
          );
          if (after.state.status === 'recorded') mirror = after.state.mirror;
        } catch (err) {
          // The capture stands; the mirror's outcome stays `pending` in the read model.
          logger.warn({ err, captureId }, 'eval capture: mirror outcome not recorded');
        }
      }
      const snapshot = state.snapshot === 'linked' ? 'linked' : 'missing';
      if (snapshot === 'missing') scheduleRetry(context, captureId, body.execution_id);
      return {
        id: captureId,
        execution_id: body.execution_id,
        score: state.score,
        snapshot_status: snapshot,
        mirror_status: mirror,
        replay_mode: replayModeOf(state.snapshot),
      };
    },

    async relinkMissing() {
      let checked = 0;
      let linked = 0;
      for (const row of await capturesWithMissingSnapshots(deps.knex)) {
        checked++;
        const turn = await findTurnSnapshot(deps.store, row.tenant_id, row.execution_id);
        if (!turn) continue;
        const result = await recheckSnapshot(
          deps,
          { tenantId: row.tenant_id, actorId: SYSTEM_USER_ID },
          row.capture_id,
          { type: 'RecheckSnapshot', check: 'startup', found: true, conversationId: turn.conversationId },
        );
        if (result.events.length > 0) linked++;
      }
      if (checked > 0) logger.info({ checked, linked }, 'eval captures: start-up re-link pass');
      return { checked, linked };
    },

    async remirrorPending() {
      let sent = 0;
      let mirrored = 0;
      if (!langfuse) return { sent, mirrored };
      for (const row of await capturesWithPendingMirror(deps.knex)) {
        sent++;
        const score = row.score as -1 | 1;
        const result = await mirrorScore(langfuse, {
          captureId: row.capture_id,
          executionId: row.execution_id,
          score,
          note: row.note,
          categoryTag: row.category_tag,
          gesture: row.gestures,
          at: deps.clock(),
        });
        await recordMirrorOutcome(
          deps,
          { tenantId: row.tenant_id, actorId: SYSTEM_USER_ID },
          row.capture_id,
          result.ok
            ? { type: 'RecordMirrorOutcome', score, ok: true }
            : { type: 'RecordMirrorOutcome', score, ok: false, error: result.error },
        );
        if (result.ok) mirrored++;
      }
      if (sent > 0) logger.info({ sent, mirrored }, 'eval captures: pending score mirrors sent again at start-up');
      return { sent, mirrored };
    },

    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },

    async settled() {
      while (timers.size > 0 || running.size > 0) {
        if (running.size > 0) await Promise.all([...running]);
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
