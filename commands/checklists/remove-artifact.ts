import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound } from '../../src/platform/domain-errors';
import { checklistAggregate, type ChecklistEvent, type ChecklistState } from '../../streams/checklists/checklist';
import { inProgress, itemAt } from './guards';

export interface RemoveArtifact {
  type: 'RemoveArtifact';
  artifactId: string;
  itemIndex: number;
  removedBy: string;
}

export function decideRemoveArtifact(command: RemoveArtifact, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = inProgress(state, 'remove an artifact');
  itemAt(checklist, command.itemIndex);
  if (checklist.artifacts[command.artifactId] !== command.itemIndex) throw new NotFound('Artifact not found');
  return [
    {
      type: 'ArtifactRemoved',
      data: {
        artifactId: command.artifactId,
        itemIndex: command.itemIndex,
        removedBy: command.removedBy,
        removedAt: now.toISOString(),
      },
    },
  ];
}

export const removeArtifactDecider: Decider<RemoveArtifact, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideRemoveArtifact,
};

export async function removeArtifact(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  checklistId: string,
  itemIndex: number,
  artifactId: string,
) {
  await deps.handle(
    removeArtifactDecider,
    checklistAggregate.stream(context.tenantId, checklistId),
    { type: 'RemoveArtifact', artifactId, itemIndex, removedBy: context.actorId },
    context,
  );
}
