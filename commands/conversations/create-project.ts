import type { Decider } from '../../src/platform/command-handling/decider';
import { z } from 'zod';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import {
  projectAggregate,
  ProjectDefaults,
  type ProjectEvent,
  type ProjectState,
  projectStream,
} from '../../streams/conversations/project';

export const ProjectFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(4000).nullable(),
  instructions: z.string().max(50_000).nullable(),
  defaults: ProjectDefaults,
};

/** POST /projects: `{name, description?, instructions?, defaults?}`. */
export const CreateProjectBody = z
  .object({
    name: ProjectFields.name,
    description: ProjectFields.description.optional(),
    instructions: ProjectFields.instructions.optional(),
    defaults: ProjectFields.defaults.optional(),
  })
  .strict();

export interface CreateProject {
  type: 'CreateProject';
  projectId: string;
  userId: string;
  name: string;
  description: string | null;
  instructions: string | null;
  defaults: ProjectDefaults;
}

export function decideCreateProject(command: CreateProject, state: ProjectState): ProjectEvent[] {
  if (state.status !== 'none') throw new Conflict('A project with this id exists already');
  const { projectId, userId, name, description, instructions, defaults } = command;
  return [{ type: 'ProjectCreated', data: { projectId, userId, name, description, instructions, defaults } }];
}

const decider: Decider<CreateProject, ProjectState, ProjectEvent> = {
  ...projectAggregate,
  decide: decideCreateProject,
};

export async function createProject(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  command: CreateProject,
): Promise<void> {
  await deps.handle(decider, projectStream(tenantId, command.projectId), command, {
    tenantId,
    actorId: command.userId,
  });
}
