import { decideAddKnowledgeFile } from '../../../commands/conversations/add-knowledge-file';
import { decideCreateProject } from '../../../commands/conversations/create-project';
import { decideDeleteProject } from '../../../commands/conversations/delete-project';
import { decideRemoveKnowledgeFile } from '../../../commands/conversations/remove-knowledge-file';
import { decideUpdateProject } from '../../../commands/conversations/update-project';
import { Conflict, NotFound } from '../../../src/platform/domain-errors';
import { projectAggregate, type ProjectEvent, type ProjectState } from '../../../streams/conversations/project';
import { dispatching, given } from '../../support/given';

type AnyCommand =
  | Parameters<typeof decideCreateProject>[0]
  | Parameters<typeof decideUpdateProject>[0]
  | Parameters<typeof decideDeleteProject>[0]
  | Parameters<typeof decideAddKnowledgeFile>[0]
  | Parameters<typeof decideRemoveKnowledgeFile>[0];
const projectDecider = dispatching<ProjectState, ProjectEvent, AnyCommand>(projectAggregate, {
  CreateProject: decideCreateProject,
  UpdateProject: decideUpdateProject,
  DeleteProject: decideDeleteProject,
  AddKnowledgeFile: decideAddKnowledgeFile,
  RemoveKnowledgeFile: decideRemoveKnowledgeFile,
});

const OWNER = 'owner';
const created: ProjectEvent = {
  type: 'ProjectCreated',
  data: { projectId: 'p1', userId: OWNER, name: 'Permian', description: null, instructions: null, defaults: {} },
};
const file = (fileId: string): ProjectEvent => ({
  type: 'KnowledgeFileAdded',
  data: {
    fileId,
    filename: `${fileId}.txt`,
    contentType: 'text/plain',
    sizeBytes: 1,
    tokenEstimate: 1,
    truncated: false,
    text: 't',
  },
});
const add = (fileId: string, callerId = OWNER) => ({
  type: 'AddKnowledgeFile' as const,
  callerId,
  fileId,
  filename: 'rules.txt',
  sizeBytes: 5,
  extracted: { contentType: 'text/plain', text: 'rules', tokenEstimate: 1, truncated: false },
});

describe('project decider', () => {
  it('creates a project once; the same id again is a conflict', () => {
    const command = {
      type: 'CreateProject' as const,
      projectId: 'p1',
      userId: OWNER,
      name: 'Permian',
      description: null,
      instructions: null,
      defaults: {},
    };
    given(projectDecider).when(command).then([created]);
    given(projectDecider, [created]).when(command).thenThrows(Conflict);
  });

  it('records only the fields that change', () => {
    given(projectDecider, [created])
      .when({
        type: 'UpdateProject',
        callerId: OWNER,
        changes: { name: 'Permian', defaults: { thinking_mode: 'adaptive' } },
      })
      .then([{ type: 'ProjectUpdated', data: { defaults: { thinking_mode: 'adaptive' } } }]);
    given(projectDecider, [created])
      .when({ type: 'UpdateProject', callerId: OWNER, changes: { name: 'Permian' } })
      .thenNothing();
  });

  it("another user's project is not found for every command", () => {
    given(projectDecider, [created])
      .when({ type: 'UpdateProject', callerId: 'x', changes: { name: 'n' } })
      .thenThrows(NotFound);
    given(projectDecider, [created])
      .when({ type: 'DeleteProject', callerId: 'x', projectId: 'p1' })
      .thenThrows(NotFound);
    given(projectDecider, [created]).when(add('f1', 'x')).thenThrows(NotFound);
    given(projectDecider, [created, file('f1')])
      .when({ type: 'RemoveKnowledgeFile', callerId: 'x', fileId: 'f1' })
      .thenThrows(NotFound);
  });

  it('accepts the fifth knowledge file and refuses the sixth with a conflict', () => {
    const four = [created, file('f1'), file('f2'), file('f3'), file('f4')];
    given(projectDecider, four).when(add('f5')).events();
    given(projectDecider, [...four, file('f5')])
      .when(add('f6'))
      .thenThrows(Conflict, /at most 5/);
  });

  it('a removed file frees its place', () => {
    given(projectDecider, [
      created,
      file('f1'),
      file('f2'),
      file('f3'),
      file('f4'),
      file('f5'),
      { type: 'KnowledgeFileRemoved', data: { fileId: 'f2' } },
    ])
      .when(add('f6'))
      .events();
  });

  it('deletes once; deleting again is a no-op; a deleted project takes no more changes', () => {
    given(projectDecider, [created])
      .when({ type: 'DeleteProject', callerId: OWNER, projectId: 'p1' })
      .then([{ type: 'ProjectDeleted', data: { projectId: 'p1' } }]);
    const deleted = [created, { type: 'ProjectDeleted', data: { projectId: 'p1' } } as ProjectEvent];
    given(projectDecider, deleted).when({ type: 'DeleteProject', callerId: OWNER, projectId: 'p1' }).thenNothing();
    given(projectDecider, deleted).when(add('f1')).thenThrows(NotFound);
  });

  it('removing an unknown knowledge file is not found', () => {
    given(projectDecider, [created])
      .when({ type: 'RemoveKnowledgeFile', callerId: OWNER, fileId: 'nope' })
      .thenThrows(NotFound, /Knowledge file/);
  });
});
