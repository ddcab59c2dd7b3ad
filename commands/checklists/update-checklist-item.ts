import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import {
  checklistAggregate,
  type ChecklistEvent,
  type ChecklistState,
  ITEM_STATUSES,
  type ItemStatus,
} from '../../streams/checklists/checklist';
import { inProgress, itemAt } from './guards';

/** PATCH /checklists/{id}/items/{idx}: `status` and/or `notes`. */
export const UpdateChecklistItemBody = z
  .object({ status: z.enum(ITEM_STATUSES).optional(), notes: z.string().max(10_000).nullable().optional() })
  .strict()
  .refine((b) => b.status !== undefined || b.notes !== undefined, { message: 'give status and/or notes' });

export interface UpdateChecklistItem {
  type: 'UpdateChecklistItem';
  index: number;
  status?: ItemStatus;
  notes?: string | null;
  updatedBy: string;
}

export function decideUpdateChecklistItem(
  command: UpdateChecklistItem,
  state: ChecklistState,
  now: Date,
): ChecklistEvent[] {
  const checklist = inProgress(state, 'update an item');
  itemAt(checklist, command.index);
  const data: Extract<ChecklistEvent, { type: 'ChecklistItemUpdated' }>['data'] = {
    index: command.index,
    updatedBy: command.updatedBy,
    updatedAt: now.toISOString(),
  };
  if (command.status !== undefined) data.status = command.status;
  if (command.notes !== undefined) data.notes = command.notes;
  return [{ type: 'ChecklistItemUpdated', data }];
}

export const updateChecklistItemDecider: Decider<UpdateChecklistItem, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideUpdateChecklistItem,
};

export async function updateChecklistItem(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  checklistId: string,
  index: number,
  body: z.infer<typeof UpdateChecklistItemBody>,
) {
  const command: UpdateChecklistItem = {
    type: 'UpdateChecklistItem',
    index,
    status: body.status,
    notes: body.notes,
    updatedBy: context.actorId,
  };
  await deps.handle(
    updateChecklistItemDecider,
    checklistAggregate.stream(context.tenantId, checklistId),
    command,
    context,
  );
}
