import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import {
  ABANDONED_AFTER_MS,
  assessmentAggregate,
  type AssessmentEvent,
  type AssessmentFrame,
  type AssessmentState,
} from '../../streams/checklists/assessment';

export type AssessmentCommand =
  | {
      type: 'StartAssessment';
      assessmentId: string;
      checklistId: string;
      templateId: string;
      entityId: string;
      startedBy: string;
      rerun: boolean;
    }
  | { type: 'RecordAssessmentFrames'; assessmentId: string; frames: AssessmentFrame[] };

/**
 * One run at a time per checklist: a start while a live run is going answers nothing (the
 * caller follows the running one); readers that find a completed run only start another
 * when they ask for a rerun. Frames are accepted only for the current running run, so a
 * superseded runner (its process was presumed dead) cannot interleave its frames.
 */
export function decideAssessment(command: AssessmentCommand, state: AssessmentState, now: Date): AssessmentEvent[] {
  switch (command.type) {
    case 'StartAssessment': {
      if (state.status === 'running' && now.getTime() - Date.parse(state.startedAt) < ABANDONED_AFTER_MS) return [];
      if (state.status === 'complete' && !command.rerun) return [];
      const { type: _type, rerun: _rerun, ...data } = command;
      return [{ type: 'AssessmentStarted', data: { ...data, startedAt: now.toISOString() } }];
    }
    case 'RecordAssessmentFrames':
      if (state.status !== 'running' || state.assessmentId !== command.assessmentId)
        throw new Conflict('This assessment run is no longer the current one');
      return command.frames;
    default:
      return assertNever(command);
  }
}

export const assessmentDecider: Decider<AssessmentCommand, AssessmentState, AssessmentEvent> = {
  ...assessmentAggregate,
  decide: decideAssessment,
};

/** True when this call started the run (and so must perform it). */
export async function startAssessment(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  command: Extract<AssessmentCommand, { type: 'StartAssessment' }>,
): Promise<boolean> {
  const { events } = await deps.handle(
    assessmentDecider,
    assessmentAggregate.stream(context.tenantId, command.checklistId),
    command,
    context,
  );
  return events.length > 0;
}

/** Appends frames in one write (one item's results at a time, so readers see progress item by item). */
export async function recordFrames(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  checklistId: string,
  assessmentId: string,
  frames: AssessmentFrame[],
): Promise<void> {
  if (frames.length === 0) return;
  await deps.handle(
    assessmentDecider,
    assessmentAggregate.stream(context.tenantId, checklistId),
    { type: 'RecordAssessmentFrames', assessmentId, frames },
    context,
  );
}
