import { assessmentDigest, type AssessmentDigest } from '../../queries/checklists/assessment-digest';
import { getChecklist } from '../../queries/checklists/checklists';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import { assessFormPrItem, type FormPrContext, formPrFigures } from './assessment/form-pr';
import { loadFormPrContext } from './assessment/form-pr-subjects';
import { ItemFrames } from './assessment/frames';
import { assessOtherItem, loadOtherSubjects } from './assessment/other-forms';
import { loadWellFacts, type WellFacts } from './assessment/well-facts';
import { previousMonth } from './assessment/working-days';
import { FILING_TEMPLATES, type FilingTemplate } from '../../streams/checklists/filing-templates';

/**
 * The payload of a filing approval (the contract shared by the assistant, the checklist
 * workflow and the console): what would be filed, for which entity and period, the figures
 * with their graph source, and the validations — from the checklist's latest assessment when
 * there is one, else from the same item assessors run in memory (nothing is recorded). One
 * builder for every path, so a reviewer sees the same figures whoever asked.
 */
export interface FilingPayload {
  kind: 'filing';
  summary: string;
  entity: { id: string; vertex_id: string | null; type: string; name: string; api_number: string | null };
  form: string;
  form_label: string;
  period: string | null;
  figures: Array<{ label: string; value: number | null; unit: string; source: string }>;
  validations: Array<{ key: string; label: string; status: 'pass' | 'fail' | 'warn' | 'unknown'; message: string }>;
  checklist_id: string | null;
  conversation_id: string | null;
  execution_id: string | null;
  /** The keys reviewers and older clients already read (`filing_type`, `entity_id`). */
  filing_type: string;
  entity_id: string;
  template_id: string | null;
}

/** The checklist a filing is about, as its own stream or the read model gives it. */
export interface ChecklistRef {
  checklist_id: string;
  template_id: string;
  entity_id: string;
  entity_type: string;
  period: string | null;
}

export interface FilingRequest {
  summary: string;
  /** A template id (`form_pr`) or a form name (`PR`, `Form PR`, `R-32`). */
  form?: string;
  entity_id?: string;
  period?: string | null;
  checklist_id?: string | null;
  /**
   * The checklist itself when the caller already read it from its stream (the workflow's
   * reactor reads the write side, never a lagging read model); wins over `checklist_id`.
   */
  checklist?: ChecklistRef;
}

const normalized = (form: string) =>
  form
    .toUpperCase()
    .replace(/^FORM\s+/, '')
    .replace(/[\s_]/g, '-');

/** The template a form name or template id means; undefined when none. */
export function templateOfForm(form: string): FilingTemplate | undefined {
  const key = normalized(form);
  return FILING_TEMPLATES.find(
    (t) =>
      t.templateId.toUpperCase().replace(/_/g, '-') === key ||
      normalized(t.form) === key ||
      t.form.split('/').some((f) => normalized(f) === key),
  );
}

const DISPOSITIONS: Record<string, string> = {
  '01': 'Gas used on lease (code 01)',
  '02': 'Gas to transmission line (code 02)',
  '10': 'Gas flared (code 10)',
  '11': 'Gas vented (code 11)',
};

/** The unit's figures as the regulator files them (an oil lease's wells, or a gas well); a missing month stays null. */
export function formPrFigureRows(ctx: FormPrContext, period: string): FilingPayload['figures'] {
  const f = formPrFigures(ctx.unit, period);
  const source = `graph:${ctx.unit.entity.label}/${ctx.unit.entity.entityId}`;
  const rows: FilingPayload['figures'] =
    f.wellType === 'oil'
      ? [
          { label: 'Oil produced', value: f.oilBbl, unit: 'bbl', source },
          { label: 'Casinghead gas produced', value: f.gasMcf, unit: 'mcf', source },
        ]
      : [
          { label: 'Condensate produced', value: f.oilBbl, unit: 'bbl', source },
          { label: 'Gas-well gas produced', value: f.gasMcf, unit: 'mcf', source },
        ];
  for (const code of Object.keys(f.dispositions ?? {}).sort())
    rows.push({
      label: DISPOSITIONS[code] ?? `Gas disposition code ${code}`,
      value: f.dispositions![code],
      unit: 'mcf',
      source,
    });
  return rows;
}

function entityOf(facts: WellFacts): FilingPayload['entity'] {
  const p = facts.well.properties;
  return {
    id: facts.well.entity_id,
    vertex_id: facts.well.id,
    type: facts.well.label,
    name: p.name ?? p.well_name ?? facts.well.entity_id,
    api_number: p.api_number ?? null,
  };
}

const statusOf = (v: { passed: boolean; severity: string }): FilingPayload['validations'][number]['status'] =>
  v.passed ? 'pass' : v.severity === 'error' ? 'fail' : 'warn';

function validationsOf(digest: AssessmentDigest): FilingPayload['validations'] {
  const names = new Map(digest.items.map((i) => [i.index, i.name]));
  return digest.validations.map((v) => ({
    key: v.check,
    label: names.get(v.item_index) ?? v.check,
    status: statusOf(v),
    message: v.message,
  }));
}

/** The template's item assessors over the graph's facts, recorded nowhere. */
async function dryValidations(
  deps: Pick<PlatformDeps, 'knex'>,
  tenantId: string,
  template: FilingTemplate,
  facts: WellFacts,
  period: string,
  today: string,
): Promise<FilingPayload['validations']> {
  const formPr =
    template.templateId === 'form_pr' ? await loadFormPrContext(deps.knex, tenantId, facts, period, today) : null;
  const subjects = formPr ? null : await loadOtherSubjects(deps.knex, tenantId, facts);
  return template.items.flatMap((item, index) => {
    const frames = new ItemFrames('dry-run', index);
    if (formPr) assessFormPrItem(item.key, frames, formPr);
    else assessOtherItem(item.key, frames, facts, today, subjects!);
    return frames.frames.flatMap((f) =>
      f.type === 'AssessmentValidationRecorded'
        ? [{ key: f.data.checkName, label: item.label, status: statusOf(f.data), message: f.data.message }]
        : [],
    );
  });
}

/** The checklist's template, or the form the request names; undefined for a form without one (W-10, G-10…). */
function templateOf(checklist: ChecklistRef | null, form: string | undefined): FilingTemplate | undefined {
  if (checklist) return FILING_TEMPLATES.find((t) => t.templateId === checklist.template_id);
  return form ? templateOfForm(form) : undefined;
}

export async function filingPayload(
  deps: Pick<PlatformDeps, 'knex' | 'store' | 'clock'>,
  tenantId: string,
  request: FilingRequest,
  ids: { conversationId?: string; executionId?: string } = {},
): Promise<FilingPayload> {
  const checklist: ChecklistRef | null =
    request.checklist ?? (request.checklist_id ? await getChecklist(deps.knex, tenantId, request.checklist_id) : null);
  if (request.checklist_id && !checklist) throw new NotFound(`checklist ${request.checklist_id} not found`);
  const template = templateOf(checklist, request.form);
  if (!template && !request.form)
    throw new ValidationFailed([
      {
        loc: ['args', 'form'],
        msg: `name the form to file: one of ${FILING_TEMPLATES.map((t) => `${t.templateId} (${t.form})`).join(', ')}`,
        type: 'missing',
      },
    ]);
  const entityId = checklist?.entity_id ?? request.entity_id;
  if (!entityId)
    throw new ValidationFailed([
      { loc: ['args', 'entity_id'], msg: 'name the well the filing is about (its API number)', type: 'missing' },
    ]);
  const label = /^lease$/i.test(checklist?.entity_type ?? '') ? 'Lease' : 'Well';
  const facts = await loadWellFacts(deps.knex, tenantId, entityId, label);
  const ref = { conversation_id: ids.conversationId ?? null, execution_id: ids.executionId ?? null };
  const period =
    checklist?.period ?? request.period ?? (template?.templateId === 'form_pr' ? previousMonth(deps.clock()) : null);
  const digest = checklist ? await assessmentDigest(deps.store, tenantId, checklist.checklist_id) : null;
  if (!facts) {
    // A checklist's entity deleted since: the reviewer still gets the request, with what its assessment said.
    if (!checklist || !template) throw new NotFound(`no ${label.toLowerCase()} ${entityId} in the knowledge graph`);
    return {
      kind: 'filing',
      summary: request.summary,
      entity: { id: entityId, vertex_id: null, type: label, name: entityId, api_number: null },
      form: template.templateId,
      form_label: template.title,
      period,
      figures: [],
      validations: [
        ...(digest ? validationsOf(digest) : []),
        {
          key: 'entity_in_graph',
          label: 'Entity in the knowledge graph',
          status: 'fail',
          message: `no ${label.toLowerCase()} ${entityId} in the knowledge graph: nothing to read the figures from`,
        },
      ],
      checklist_id: checklist.checklist_id,
      ...ref,
      filing_type: template.form,
      entity_id: entityId,
      template_id: template.templateId,
    };
  }
  if (!template) {
    // A form without a checklist template (W-10, G-10…): the reviewer sees what was asked, and that nothing was checked.
    const form = normalized(request.form!);
    return {
      kind: 'filing',
      summary: request.summary,
      entity: entityOf(facts),
      form,
      form_label: `Form ${form}`,
      period: request.period ?? null,
      figures: [],
      validations: [
        {
          key: 'checklist_template',
          label: 'Checklist template',
          status: 'unknown',
          message: `no checklist template for Form ${form}: nothing was validated before review`,
        },
      ],
      checklist_id: null,
      ...ref,
      filing_type: form,
      entity_id: facts.well.entity_id,
      template_id: null,
    };
  }
  const today = deps.clock().toISOString().slice(0, 10);
  const p = facts.well.properties;
  return {
    kind: 'filing',
    summary: request.summary,
    entity: entityOf(facts),
    form: template.templateId,
    form_label: template.title,
    period,
    figures:
      template.templateId === 'form_pr' && period
        ? formPrFigureRows(await loadFormPrContext(deps.knex, tenantId, facts, period, today), period)
        : [],
    validations: digest
      ? validationsOf(digest)
      : await dryValidations(
          deps,
          tenantId,
          template,
          facts,
          period ?? p.form_pr_period ?? previousMonth(deps.clock()),
          today,
        ),
    checklist_id: checklist?.checklist_id ?? null,
    ...ref,
    filing_type: template.form,
    entity_id: facts.well.entity_id,
    template_id: template.templateId,
  };
}
