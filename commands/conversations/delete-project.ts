import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound } from '../../src/platform/domain-errors';
import {
  projectAggregate,
  type ProjectEvent,
  type ProjectState,
  projectStream,
} from '../../streams/conversations/project';

export interface DeleteProject {
  type: 'DeleteProject';
  callerId: string;
  projectId: string;
}

/**
 * One event: the read model detaches every member conversation (project_id → null) and
 * drops the knowledge files when it applies it, so a rebuild reaches the same state.
 * Deleting again is a no-op for the owner.
 */
export function decideDeleteProject(command: DeleteProject, state: ProjectState): ProjectEvent[] {
  if (state.status === 'none' || state.ownerId !== command.callerId) throw new NotFound('Project not found');
  if (state.status === 'deleted') return [];
  return [{ type: 'ProjectDeleted', data: { projectId: command.projectId } }];
}

const decider: Decider<DeleteProject, ProjectState, ProjectEvent> = {
  ...projectAggregate,
  decide: decideDeleteProject,
};

export async function deleteProject(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  command: DeleteProject,
): Promise<void> {
  await deps.handle(decider, projectStream(tenantId, command.projectId), command, {
    tenantId,
    actorId: command.callerId,
  });
}
