import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound } from '../../src/platform/domain-errors';
import {
  ownedProject,
  projectAggregate,
  type ProjectEvent,
  type ProjectState,
  projectStream,
} from '../../streams/conversations/project';

export interface RemoveKnowledgeFile {
  type: 'RemoveKnowledgeFile';
  callerId: string;
  fileId: string;
}

export function decideRemoveKnowledgeFile(command: RemoveKnowledgeFile, state: ProjectState): ProjectEvent[] {
  const project = ownedProject(state, command.callerId);
  if (!project.fileIds.includes(command.fileId)) throw new NotFound('Knowledge file not found');
  return [{ type: 'KnowledgeFileRemoved', data: { fileId: command.fileId } }];
}

const decider: Decider<RemoveKnowledgeFile, ProjectState, ProjectEvent> = {
  ...projectAggregate,
  decide: decideRemoveKnowledgeFile,
};

export async function removeKnowledgeFile(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  projectId: string,
  command: RemoveKnowledgeFile,
): Promise<void> {
  await deps.handle(decider, projectStream(tenantId, projectId), command, { tenantId, actorId: command.callerId });
}
