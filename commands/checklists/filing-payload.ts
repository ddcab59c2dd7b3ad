import { findTemplate } from '../../src/contexts/checklists/filing-templates';
import type { Properties } from '../../streams/graph/properties';

/**
 * The payload of an approval that asks a reviewer to let a filing go (the contract shared by
 * the assistant, the workflows and the console): what would be filed, for which entity and
 * period, the figures with their sources and the validations behind them.
 */
export interface FilingFigure {
  label: string;
  value: number | null;
  unit: string;
  source: string;
}

export interface FilingValidation {
  key: string;
  label: string;
  status: 'pass' | 'fail' | 'warn' | 'unknown';
  message: string;
}

export interface FilingPayload {
  kind: 'filing';
  summary: string;
  entity: { id: string; type: string; name: string; api_number: string | null };
  form: string;
  form_label: string;
  period: string | null;
  figures: FilingFigure[];
  validations: FilingValidation[];
  checklist_id: string | null;
  conversation_id: string | null;
  execution_id: string | null;
  [extra: string]: unknown;
}

/** What a checklist's filing reads from the graph: the figures of each form, by property. */
const FIGURES: Record<string, Array<[label: string, property: string, unit: string]>> = {
  form_pr: [
    ['Oil produced', 'production_oil_bbls', 'bbl'],
    ['Gas produced', 'production_gas_mcf', 'mcf'],
    ['Gas used on lease (code 01)', 'gas_used_on_lease_mcf', 'mcf'],
    ['Gas sold', 'gas_sold_mcf', 'mcf'],
    ['Gas flared (code 10)', 'gas_flared_mcf', 'mcf'],
    ['Gas vented (code 11)', 'gas_vented_mcf', 'mcf'],
  ],
  r_32: [
    ['Gas flared (code 10)', 'gas_flared_mcf', 'mcf'],
    ['Gas vented (code 11)', 'gas_vented_mcf', 'mcf'],
    ['Producing days', 'producing_days', 'days'],
  ],
};

/** The graph label of a template's entity type (`well` → `Well`). */
export const graphLabelOf = (entityType: string) => entityType.charAt(0).toUpperCase() + entityType.slice(1);

export interface ChecklistFacts {
  checklistId: string;
  templateId: string;
  entityId: string;
  entityType: string;
  period: string | null;
  items: Array<{ index: number; key: string; label: string }>;
}

export interface AssessmentCheck {
  checkName: string;
  passed: boolean;
  message: string;
  severity: 'info' | 'warning' | 'error';
}

function figureValue(raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

/**
 * Builds the filing payload from the checklist, its entity as the graph holds it (null when
 * the entity is gone) and its workspace assessment's last checks (none: every item of the
 * template is listed as `unknown`, since nothing verified it).
 */
export function filingPayload(checklist: ChecklistFacts, entity: { id: string; label: string; properties: Properties } | null, checks: AssessmentCheck[], summary: string): FilingPayload {
  const template = findTemplate(checklist.templateId);
  const label = entity?.label ?? graphLabelOf(checklist.entityType);
  const properties = entity?.properties ?? {};
  const figures = (FIGURES[checklist.templateId] ?? []).map(([figure, property, unit]) => ({
    label: figure,
    value: figureValue(properties[property]),
    unit,
    source: `graph:${label}/${entity?.id ?? checklist.entityId}#${property}`,
  }));
  const validations: FilingValidation[] =
    checks.length > 0
      ? checks.map((c) => ({ key: c.checkName, label: c.checkName.replace(/_/g, ' '), status: c.passed ? 'pass' : c.severity === 'error' ? 'fail' : 'warn', message: c.message }))
      : checklist.items.map((i) => ({ key: i.key, label: i.label, status: 'unknown', message: 'not verified by a workspace assessment' }));
  return {
    kind: 'filing',
    summary,
    entity: { id: entity?.id ?? checklist.entityId, type: label, name: properties.name ?? properties.well_name ?? checklist.entityId, api_number: properties.api_number ?? null },
    form: checklist.templateId,
    form_label: template ? `${template.form === 'PR' ? 'Form PR' : template.form} (${template.title})` : checklist.templateId,
    period: checklist.period,
    figures,
    validations,
    checklist_id: checklist.checklistId,
    conversation_id: null,
    execution_id: null,
    // The keys reviewers and older clients already read (spec 2 §4: filing_type, entity_id).
    filing_type: template?.form ?? checklist.templateId,
    entity_id: checklist.entityId,
    template_id: checklist.templateId,
  };
}
