import type { Decider } from '../../src/platform/command-handling/decider';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { PlatformDeps } from '../../src/platform/context-module';
import {
  ownedProject,
  projectAggregate,
  type ProjectChanges,
  type ProjectEvent,
  type ProjectState,
  projectStream,
} from '../../streams/conversations/project';
import { ProjectFields } from './create-project';

/** PATCH /projects/{id}: any of name, description, instructions, defaults (replaced whole). */
export const UpdateProjectBody = z
  .object({
    name: ProjectFields.name.optional(),
    description: ProjectFields.description.optional(),
    instructions: ProjectFields.instructions.optional(),
    defaults: ProjectFields.defaults.optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'give at least one of name, description, instructions, defaults',
  });

export interface UpdateProject {
  type: 'UpdateProject';
  callerId: string;
  changes: ProjectChanges;
}

export function decideUpdateProject(command: UpdateProject, state: ProjectState): ProjectEvent[] {
  const project = ownedProject(state, command.callerId);
  const changed = Object.fromEntries(
    Object.entries(command.changes).filter(
      ([field, value]) => value !== undefined && !isDeepStrictEqual(value, project[field as keyof ProjectChanges]),
    ),
  ) as ProjectChanges;
  return Object.keys(changed).length === 0 ? [] : [{ type: 'ProjectUpdated', data: changed }];
}

const decider: Decider<UpdateProject, ProjectState, ProjectEvent> = {
  ...projectAggregate,
  decide: decideUpdateProject,
};

export async function updateProject(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  projectId: string,
  command: UpdateProject,
): Promise<void> {
  await deps.handle(decider, projectStream(tenantId, projectId), command, { tenantId, actorId: command.callerId });
}
