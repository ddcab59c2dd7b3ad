import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { checklistAggregate, type ChecklistEvent, type ChecklistState } from '../../streams/checklists/checklist';
import { inProgress } from './guards';
import { boundedRecord } from '../../src/platform/http/bounded';

/** PATCH /checklists/{id}: metadata only (title, reporting period, due date, free metadata object). */
export const UpdateChecklistBody = z
  .object({
    title: z.string().trim().min(1).max(300).optional(),
    period: z
      .string()
      .max(7)
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
      .nullable()
      .optional(),
    due_date: z
      .string()
      .max(10)
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD')
      .nullable()
      .optional(),
    metadata: boundedRecord(z.unknown()).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to update' });

export interface UpdateChecklist {
  type: 'UpdateChecklist';
  title?: string;
  period?: string | null;
  dueDate?: string | null;
  metadata?: Record<string, unknown>;
  updatedBy: string;
}

export function decideUpdateChecklist(command: UpdateChecklist, state: ChecklistState, now: Date): ChecklistEvent[] {
  inProgress(state, 'update the checklist');
  const { type: _type, updatedBy, ...changes } = command;
  const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  return [{ type: 'ChecklistUpdated', data: { ...defined, updatedBy, updatedAt: now.toISOString() } }];
}

export const updateChecklistDecider: Decider<UpdateChecklist, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideUpdateChecklist,
};

export async function updateChecklist(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  checklistId: string,
  body: z.infer<typeof UpdateChecklistBody>,
) {
  const command: UpdateChecklist = {
    type: 'UpdateChecklist',
    title: body.title,
    period: body.period,
    dueDate: body.due_date,
    metadata: body.metadata,
    updatedBy: context.actorId,
  };
  await deps.handle(updateChecklistDecider, checklistAggregate.stream(context.tenantId, checklistId), command, context);
}
