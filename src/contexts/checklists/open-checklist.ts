import type { z } from 'zod';
import { createChecklist, CreateChecklistBody } from '../../../commands/checklists/create-checklist';
import { findVertex } from '../../../queries/graph/entities';
import { namespaceOf } from '../../../streams/graph/names';
import type { CommandContext } from '../../platform/command-handling/command-handler';
import type { PlatformDeps } from '../../platform/context-module';
import { ValidationFailed } from '../../platform/domain-errors';
import { formPrDueDate, previousMonth } from './assessment/working-days';
import { FILING_TEMPLATES, findTemplate } from './filing-templates';

const invalidField = (field: string, msg: string) => new ValidationFailed([{ loc: ['body', field], msg, type: 'value_error' }]);

/**
 * POST /checklists (and the `start_checklist` agent tool): the template must exist and fit
 * the entity, the well must be in the graph; a Form PR defaults to last month and its due date.
 */
export async function openChecklist(deps: PlatformDeps, context: CommandContext, body: z.infer<typeof CreateChecklistBody>): Promise<string> {
  const template = findTemplate(body.template_id);
  if (!template) throw invalidField('template_id', `unknown template; one of ${FILING_TEMPLATES.map((t) => t.templateId).join(', ')}`);
  if (body.entity_type !== template.entityType) throw invalidField('entity_type', `template ${template.templateId} is about a ${template.entityType}`);
  if (body.domain !== undefined && body.domain !== template.domain) throw invalidField('domain', `template ${template.templateId} belongs to domain ${template.domain}`);
  if (!(await findVertex(deps.knex, namespaceOf(context.tenantId), 'Well', body.entity_id))) throw invalidField('entity_id', `no ${template.entityType} ${body.entity_id} in the knowledge graph`);
  const period = body.period ?? (template.templateId === 'form_pr' ? previousMonth(deps.clock()) : null);
  const dueDate = body.due_date ?? (template.templateId === 'form_pr' && period ? formPrDueDate(period) : null);
  return createChecklist(deps, context, { template, entityId: body.entity_id, entityType: body.entity_type, title: body.title ?? null, period, dueDate });
}
