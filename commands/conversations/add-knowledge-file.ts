import type { PlatformDeps } from '../../src/context-module';
import { Conflict } from '../../src/domain/errors';
import type { ExtractedText } from '../../src/infra/extraction';
import { MAX_KNOWLEDGE_FILES, ProjectEvent, ProjectState, projectStream } from '../../streams/conversations/project';
import { ownedProject, projectDecider } from './project-decider';

export interface AddKnowledgeFile {
  type: 'AddKnowledgeFile';
  callerId: string;
  fileId: string;
  filename: string;
  sizeBytes: number;
  extracted: Pick<ExtractedText, 'contentType' | 'text' | 'tokenEstimate' | 'truncated'>;
}

export const knowledgeCapReached = () => new Conflict(`A project holds at most ${MAX_KNOWLEDGE_FILES} knowledge files; remove one first`);

/** The cap is decided here, on the stream, so two parallel uploads cannot both be the fifth. */
export function decideAddKnowledgeFile(command: AddKnowledgeFile, state: ProjectState): ProjectEvent[] {
  const project = ownedProject(state, command.callerId);
  if (project.fileIds.includes(command.fileId)) return [];
  if (project.fileIds.length >= MAX_KNOWLEDGE_FILES) throw knowledgeCapReached();
  const { extracted } = command;
  return [
    {
      type: 'KnowledgeFileAdded',
      data: {
        fileId: command.fileId,
        filename: command.filename,
        content_type: extracted.contentType,
        size_bytes: command.sizeBytes,
        token_estimate: extracted.tokenEstimate,
        truncated: extracted.truncated,
        text: extracted.text,
      },
    },
  ];
}

export async function addKnowledgeFile(deps: Pick<PlatformDeps, 'handle'>, tenantId: string, projectId: string, command: AddKnowledgeFile): Promise<void> {
  await deps.handle(projectDecider, projectStream(tenantId, projectId), command, { tenantId, actorId: command.callerId });
}
