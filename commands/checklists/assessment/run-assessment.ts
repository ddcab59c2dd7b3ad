import { addArtifact } from '../add-artifact';
import { recordFrames } from '../assessment-commands';
import { getChecklist } from '../../../queries/checklists/checklists';
import type { AssessmentFrame } from '../../../streams/checklists/assessment';
import type { CommandContext } from '../../../src/platform/command-handling/command-handler';
import { derivedUuid } from '../../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../../src/platform/context-module';
import { assessFormPrItem, type FormPrContext, formPrFigures } from './form-pr';
import { loadFormPrContext } from './form-pr-subjects';
import { ItemFrames } from './frames';
import { assessOtherItem, loadOtherSubjects } from './other-forms';
import { num, loadWellFacts, type WellFacts } from './well-facts';
import { formPrDueDate, previousMonth } from './working-days';

export const ASSESSOR = 'assessment-agent';

type Deps = Pick<PlatformDeps, 'handle' | 'knex' | 'clock' | 'logger'>;

/**
 * Walks a checklist item by item against the knowledge graph and records every frame in
 * the checklist's assessment stream as it goes (readers follow the stream live). The
 * context carries no Idempotency-Key: each frame is its own event.
 */
export async function runAssessment(
  deps: Deps,
  context: CommandContext,
  checklistId: string,
  assessmentId: string,
  signal: AbortSignal,
): Promise<void> {
  const ctx: CommandContext = {
    tenantId: context.tenantId,
    actorId: context.actorId,
    correlationId: context.correlationId,
    causationId: context.causationId,
  };
  const emitAll = (frames: AssessmentFrame[]) => recordFrames(deps, ctx, checklistId, assessmentId, frames);
  const emit = (frame: AssessmentFrame) => emitAll([frame]);
  const statusFrame = (
    state: 'started' | 'assessing' | 'completed' | 'failed',
    message: string,
    itemIndex: number | null = null,
  ): AssessmentFrame => ({
    type: 'AssessmentAgentStatusChanged',
    data: { assessmentId, state, message, itemIndex },
  });
  const status = (
    state: 'started' | 'assessing' | 'completed' | 'failed',
    message: string,
    itemIndex: number | null = null,
  ) => emit(statusFrame(state, message, itemIndex));
  let passed = 0;
  let failed = 0;
  let assessed = 0;
  const completeFrame = (outcome: 'completed' | 'failed', error: string | null): AssessmentFrame => ({
    type: 'AssessmentCompleted',
    data: {
      assessmentId,
      status: outcome,
      itemsAssessed: assessed,
      validationsPassed: passed,
      validationsFailed: failed,
      error,
      completedAt: deps.clock().toISOString(),
    },
  });
  const complete = (outcome: 'completed' | 'failed', error: string | null) => emit(completeFrame(outcome, error));

  try {
    const checklist = await getChecklist(deps.knex, context.tenantId, checklistId);
    if (!checklist) throw new Error('checklist not found');
    await status('started', `Assessing ${checklist.title} for ${checklist.entity_id}`);
    const label = /^lease$/i.test(checklist.entity_type) ? 'Lease' : 'Well';
    const facts = await loadWellFacts(deps.knex, context.tenantId, checklist.entity_id, label);
    if (!facts) {
      await status('failed', `${checklist.entity_id} is not in the knowledge graph`);
      await complete('failed', `entity ${checklist.entity_id} not found in the knowledge graph`);
      return;
    }
    const spatial = spatialFrame(assessmentId, facts);
    if (spatial) await emit(spatial);
    const today = deps.clock().toISOString().slice(0, 10);
    const period = checklist.period ?? facts.well.properties.form_pr_period ?? previousMonth(deps.clock());
    const formPr =
      checklist.template_id === 'form_pr'
        ? await loadFormPrContext(deps.knex, context.tenantId, facts, period, today)
        : null;
    const subjects = formPr ? null : await loadOtherSubjects(deps.knex, context.tenantId, facts);

    for (const item of checklist.items) {
      if (signal.aborted) throw new Error('assessment stopped: the platform is shutting down');
      await emitAll([
        statusFrame('assessing', `Item ${item.index}: ${item.label}`, item.index),
        {
          type: 'AssessmentItemUpdated',
          data: {
            assessmentId,
            itemIndex: item.index,
            itemName: item.label,
            status: 'in_progress',
            summary: 'Assessing',
            completedBy: null,
          },
        },
      ]);
      const frames = new ItemFrames(assessmentId, item.index);
      const summary = formPr
        ? assessFormPrItem(item.key, frames, formPr)
        : assessOtherItem(item.key, frames, facts, today, subjects!);
      const checks = frames.checks;
      passed += checks.passed;
      failed += checks.failed;
      assessed++;
      const outcome = frames.failed > 0 ? 'needs_review' : 'complete';
      await emitAll([
        ...frames.frames,
        {
          type: 'AssessmentItemUpdated',
          data: {
            assessmentId,
            itemIndex: item.index,
            itemName: item.label,
            status: outcome,
            summary,
            completedBy: ASSESSOR,
          },
        },
      ]);
    }

    if (formPr) await generateFormPrDraft(deps, ctx, checklist.status, checklistId, assessmentId, formPr, emit);
    await emitAll([
      statusFrame('completed', `Assessed ${assessed} items: ${passed} checks passed, ${failed} failed`),
      completeFrame('completed', null),
    ]);
  } catch (error) {
    deps.logger.warn({ err: error, checklistId, assessmentId }, 'assessment failed');
    await complete('failed', error instanceof Error ? error.message : String(error)).catch(() => undefined);
  }
}

function spatialFrame(assessmentId: string, facts: WellFacts): AssessmentFrame | null {
  const features: Extract<AssessmentFrame, { type: 'AssessmentSpatialUpdated' }>['data']['features'] = [];
  const add = (
    entityId: string,
    label: string,
    name: string | null,
    lat: string | undefined,
    lon: string | undefined,
    role: string,
  ) => {
    const latitude = num(lat);
    const longitude = num(lon);
    if (latitude !== null && longitude !== null) features.push({ entityId, label, name, latitude, longitude, role });
  };
  const p = facts.well.properties;
  add(facts.well.entity_id, 'Well', p.name ?? null, p.latitude, p.longitude, 'subject');
  for (const o of facts.offsets)
    add(
      o.vertex.entity_id,
      o.vertex.label,
      o.vertex.properties.name ?? null,
      o.vertex.properties.latitude,
      o.vertex.properties.longitude,
      'offset',
    );
  if (features.length === 0) return null;
  return { type: 'AssessmentSpatialUpdated', data: { assessmentId, entityId: facts.well.entity_id, features } };
}

/** The draft form as CSV, kept as an artifact of the first item while the checklist is being worked on. */
async function generateFormPrDraft(
  deps: Deps,
  ctx: CommandContext,
  checklistStatus: string,
  checklistId: string,
  assessmentId: string,
  formPr: FormPrContext,
  emit: (frame: AssessmentFrame) => Promise<void>,
): Promise<void> {
  if (checklistStatus !== 'in_progress') return;
  const { facts, unit, period } = formPr;
  const f = formPrFigures(unit, period);
  const p = facts.well.properties;
  const cell = (v: number | null) => (v === null ? '' : String(v));
  const lines = [
    ['field', 'value'],
    ['reporting_unit', `${unit.entity.label} ${unit.entity.entityId}`],
    ['operator', p.operator ?? facts.operator?.name ?? ''],
    ['lease', unit.entity.label === 'Lease' ? (unit.entity.properties.name ?? unit.entity.entityId) : (p.lease ?? '')],
    ['district', p.district ?? facts.lease?.district ?? ''],
    ['production_month', period],
    ['due_date', formPrDueDate(period)],
    ['allocation_method', unit.kind === 'oil_lease' ? (f.allocationMethod ?? '') : ''],
    [f.wellType === 'oil' ? 'oil_bbl' : 'condensate_bbl', cell(f.oilBbl)],
    [f.wellType === 'oil' ? 'casinghead_gas_mcf' : 'gas_well_gas_mcf', cell(f.gasMcf)],
    ...Object.keys(f.dispositions ?? {})
      .sort()
      .map((code) => [`disposition_${code}_mcf`, String(f.dispositions![code])]),
    ...f.wells.map((w) => [`well_${w.entityId}_oil_bbl_gas_mcf`, `${cell(w.oilBbl)}/${cell(w.gasMcf)}`]),
  ];
  const bytes = Buffer.from(lines.map((l) => l.map(csvCell).join(',')).join('\n') + '\n', 'utf8');
  const artifactId = derivedUuid('artifact', ctx.tenantId, assessmentId, 'form-pr-draft');
  const filename = `form-pr-${unit.entity.entityId.replace(/[^0-9A-Za-z-]/g, '')}-${period}.csv`;
  const added = await addArtifact(deps, { ...ctx, actorId: ASSESSOR }, checklistId, {
    artifactId,
    itemIndex: 0,
    artifactType: 'form_draft',
    filename,
    contentType: 'text/csv',
    source: 'assessment',
    bytes,
  }).catch((error) => {
    deps.logger.warn({ err: error, checklistId }, 'form draft not attached');
    return null;
  });
  if (!added) return;
  await emit({
    type: 'AssessmentArtifactGenerated',
    data: {
      assessmentId,
      itemIndex: 0,
      artifactId,
      artifactType: 'form_draft',
      filename,
      contentType: 'text/csv',
      sizeBytes: added.sizeBytes,
      sha256: added.sha256,
    },
  });
}

const csvCell = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
