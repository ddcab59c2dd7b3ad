import { assertNever, Decider } from '../../src/command-handling/decider';
import { NotFound } from '../../src/domain/errors';
import { evolveProject, initialProjectState, ProjectEvent, ProjectState, readProjectEvent } from '../../streams/conversations/project';
import { AddKnowledgeFile, decideAddKnowledgeFile } from './add-knowledge-file';
import { CreateProject, decideCreateProject } from './create-project';
import { decideDeleteProject, DeleteProject } from './delete-project';
import { decideRemoveKnowledgeFile, RemoveKnowledgeFile } from './remove-knowledge-file';
import { decideUpdateProject, UpdateProject } from './update-project';

export type ProjectCommand = CreateProject | UpdateProject | DeleteProject | AddKnowledgeFile | RemoveKnowledgeFile;

export const projectDecider: Decider<ProjectCommand, ProjectState, ProjectEvent> = {
  initialState: initialProjectState,
  evolve: evolveProject,
  read: readProjectEvent,
  decide(command, state) {
    switch (command.type) {
      case 'CreateProject':
        return decideCreateProject(command, state);
      case 'UpdateProject':
        return decideUpdateProject(command, state);
      case 'DeleteProject':
        return decideDeleteProject(command, state);
      case 'AddKnowledgeFile':
        return decideAddKnowledgeFile(command, state);
      case 'RemoveKnowledgeFile':
        return decideRemoveKnowledgeFile(command, state);
      default:
        return assertNever(command);
    }
  },
};

/** Projects are owner-scoped: anyone else's project answers like a missing one. */
export function ownedProject(state: ProjectState, callerId: string): Extract<ProjectState, { status: 'active' }> {
  if (state.status !== 'active' || state.ownerId !== callerId) throw new NotFound('Project not found');
  return state;
}
