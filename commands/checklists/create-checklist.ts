import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import type { FilingTemplate } from '../../streams/checklists/filing-templates';
import { checklistAggregate, type ChecklistEvent, type ChecklistState } from '../../streams/checklists/checklist';

const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** POST /checklists body; `period` (YYYY-MM) is the reporting month of a Form PR. */
export const CreateChecklistBody = z
  .object({
    template_id: z.string().trim().min(1).max(100),
    entity_id: z.string().trim().min(1).max(200),
    entity_type: z.string().trim().min(1).max(100).default('well'),
    domain: z.string().trim().min(1).max(100).optional(),
    title: z.string().trim().min(1).max(300).optional(),
    period: z.string().max(7).regex(PERIOD, 'expected YYYY-MM').optional(),
    due_date: z.string().max(10).regex(DATE, 'expected YYYY-MM-DD').optional(),
  })
  .strict();

export interface CreateChecklist {
  type: 'CreateChecklist';
  checklistId: string;
  template: FilingTemplate;
  entityId: string;
  entityType: string;
  title: string | null;
  period: string | null;
  dueDate: string | null;
  createdBy: string;
}

export function decideCreateChecklist(command: CreateChecklist, state: ChecklistState, now: Date): ChecklistEvent[] {
  if (state.status !== 'none') throw new Conflict('Checklist already exists');
  const { template } = command;
  return [
    {
      type: 'ChecklistCreated',
      data: {
        checklistId: command.checklistId,
        templateId: template.templateId,
        form: template.form,
        title: command.title ?? template.title,
        entityId: command.entityId,
        entityType: command.entityType,
        domain: template.domain,
        period: command.period,
        dueDate: command.dueDate,
        items: template.items.map((item, index) => ({
          index,
          key: item.key,
          label: item.label,
          itemType: item.itemType,
        })),
        createdBy: command.createdBy,
        createdAt: now.toISOString(),
      },
    },
  ];
}

export const createChecklistDecider: Decider<CreateChecklist, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideCreateChecklist,
};

export async function createChecklist(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  input: Omit<CreateChecklist, 'type' | 'checklistId' | 'createdBy'>,
): Promise<string> {
  const checklistId = newId(context, 'checklists.checklist');
  const command: CreateChecklist = { ...input, type: 'CreateChecklist', checklistId, createdBy: context.actorId };
  await deps.handle(createChecklistDecider, checklistAggregate.stream(context.tenantId, checklistId), command, context);
  return checklistId;
}
