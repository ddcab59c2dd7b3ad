import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { putBlob } from '../../src/platform/infra/artifact-blobs';
import {
  checklistAggregate,
  type ChecklistEvent,
  type ChecklistState,
  MAX_ARTIFACTS_PER_ITEM,
} from '../../streams/checklists/checklist';
import { inProgress, itemAt } from './guards';

export interface AddArtifact {
  type: 'AddArtifact';
  artifactId: string;
  itemIndex: number;
  artifactType: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  source: 'upload' | 'assessment';
  addedBy: string;
}

export function decideAddArtifact(command: AddArtifact, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = inProgress(state, 'add an artifact');
  itemAt(checklist, command.itemIndex);
  if (command.artifactId in checklist.artifacts) return [];
  const onItem = Object.values(checklist.artifacts).filter((i) => i === command.itemIndex).length;
  if (onItem >= MAX_ARTIFACTS_PER_ITEM)
    throw new Conflict(`An item holds at most ${MAX_ARTIFACTS_PER_ITEM} artifacts; remove one first`);
  const { type: _type, ...data } = command;
  return [{ type: 'ArtifactAdded', data: { ...data, addedAt: now.toISOString() } }];
}

export const addArtifactDecider: Decider<AddArtifact, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideAddArtifact,
};

/** The bytes go to the blob table first: an ArtifactAdded event never names content that is not stored. */
export async function addArtifact(
  deps: Pick<PlatformDeps, 'handle' | 'knex'>,
  context: CommandContext,
  checklistId: string,
  input: Omit<AddArtifact, 'type' | 'sha256' | 'sizeBytes' | 'addedBy'> & { bytes: Buffer },
) {
  const { bytes, ...rest } = input;
  const sha256 = await putBlob(deps.knex, context.tenantId, bytes, input.contentType);
  const command: AddArtifact = {
    ...rest,
    type: 'AddArtifact',
    sha256,
    sizeBytes: bytes.length,
    addedBy: context.actorId,
  };
  await deps.handle(addArtifactDecider, checklistAggregate.stream(context.tenantId, checklistId), command, context);
  return command;
}
