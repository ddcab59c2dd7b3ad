import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { extractedFileData, type UploadedFile } from '../../streams/conversations/extracted-file';
import {
  MAX_KNOWLEDGE_FILES,
  ownedProject,
  projectAggregate,
  type ProjectEvent,
  type ProjectState,
  projectStream,
} from '../../streams/conversations/project';

export interface AddKnowledgeFile extends UploadedFile {
  type: 'AddKnowledgeFile';
  callerId: string;
  fileId: string;
}

export const knowledgeCapReached = () =>
  new Conflict(`A project holds at most ${MAX_KNOWLEDGE_FILES} knowledge files; remove one first`);

/** The cap is decided here, on the stream, so two parallel uploads cannot both be the fifth. */
export function decideAddKnowledgeFile(command: AddKnowledgeFile, state: ProjectState): ProjectEvent[] {
  const project = ownedProject(state, command.callerId);
  if (project.fileIds.includes(command.fileId)) return [];
  if (project.fileIds.length >= MAX_KNOWLEDGE_FILES) throw knowledgeCapReached();
  return [{ type: 'KnowledgeFileAdded', data: { fileId: command.fileId, ...extractedFileData(command) } }];
}

const decider: Decider<AddKnowledgeFile, ProjectState, ProjectEvent> = {
  ...projectAggregate,
  decide: decideAddKnowledgeFile,
};

export async function addKnowledgeFile(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  projectId: string,
  command: AddKnowledgeFile,
): Promise<void> {
  await deps.handle(decider, projectStream(tenantId, projectId), command, { tenantId, actorId: command.callerId });
}
