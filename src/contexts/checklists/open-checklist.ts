import type { z } from 'zod';
import { createChecklist, type CreateChecklistBody } from '../../../commands/checklists/create-checklist';
import { findVertex } from '../../../queries/graph/entities';
import { namespaceOf } from '../../../streams/graph/names';
import type { CommandContext } from '../../platform/command-handling/command-handler';
import type { PlatformDeps } from '../../platform/context-module';
import { ValidationFailed } from '../../platform/domain-errors';
import { formPrDueDate, previousMonth } from '../../../commands/checklists/assessment/working-days';
import {
  entityLabelOf,
  entityMismatch,
  entityTypeMismatch,
  FILING_TEMPLATES,
  findTemplate,
} from '../../../streams/checklists/filing-templates';

const invalidField = (field: string, msg: string) =>
  new ValidationFailed([{ loc: ['body', field], msg, type: 'value_error' }]);

/**
 * POST /checklists (and the `start_checklist` agent tool): the template must exist and fit
 * the entity (a well or, for Form PR, its lease), which must be in the graph; a Form PR defaults to last month and its due date.
 */
export async function openChecklist(
  deps: PlatformDeps,
  context: CommandContext,
  body: z.infer<typeof CreateChecklistBody>,
): Promise<string> {
  const template = findTemplate(body.template_id);
  if (!template)
    throw invalidField(
      'template_id',
      `unknown template; one of ${FILING_TEMPLATES.map((t) => t.templateId).join(', ')}`,
    );
  // Entity types match the way the graph names them (`Well`), case-insensitively.
  const label = entityLabelOf(template, body.entity_type);
  if (!label) throw invalidField('entity_type', entityTypeMismatch(template, body.entity_type));
  if (body.domain !== undefined && body.domain !== template.domain)
    throw invalidField('domain', `template ${template.templateId} belongs to domain ${template.domain}`);
  const entityError = entityMismatch(
    template,
    label,
    body.entity_id,
    await findVertex(deps.knex, namespaceOf(context.tenantId), label, body.entity_id),
  );
  if (entityError) throw invalidField('entity_id', entityError);
  const period = body.period ?? (template.templateId === 'form_pr' ? previousMonth(deps.clock()) : null);
  const dueDate = body.due_date ?? (template.templateId === 'form_pr' && period ? formPrDueDate(period) : null);
  return createChecklist(deps, context, {
    template,
    entityId: body.entity_id,
    entityType: label,
    title: body.title ?? null,
    period,
    dueDate,
  });
}
