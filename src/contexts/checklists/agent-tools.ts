import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { startAssessment } from '../../../commands/checklists/assessment-commands';
import { updateChecklistItem } from '../../../commands/checklists/update-checklist-item';
import { assessmentDigest, type AssessmentDigest } from '../../../queries/checklists/assessment-digest';
import { type ChecklistView, getChecklist } from '../../../queries/checklists/checklists';
import type { AgentTool, ToolCaller, ToolProvider } from '../../platform/agent-tools';
import type { CommandContext } from '../../platform/command-handling/command-handler';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound } from '../../platform/domain-errors';
import { loadFormPrUnit } from '../../../commands/checklists/assessment/form-pr-subjects';
import { runAssessment } from '../../../commands/checklists/assessment/run-assessment';
import { FILING_TEMPLATES } from '../../../streams/checklists/filing-templates';
import { templateOfForm } from '../../../commands/checklists/filing-payload';
import { openChecklist } from './open-checklist';

/**
 * Filing checklists as agent tools: start one for a well (and assess it at once, as the
 * workspace does when it is opened), read a checklist's assessment with its validations,
 * add a note to an item. Same commands and checks as the /checklists routes.
 */
const contextOf = (caller: ToolCaller): CommandContext => ({ tenantId: caller.tenantId, actorId: caller.userId });

function describe(checklist: ChecklistView, digest: AssessmentDigest | null): string {
  const lines = [
    `Checklist ${checklist.checklist_id}: ${checklist.title} for ${checklist.entity_type.toLowerCase()} ${checklist.entity_id}${checklist.period ? `, period ${checklist.period}` : ''}${checklist.due_date ? `, due ${checklist.due_date}` : ''}; status ${checklist.status.replace(/_/g, ' ')}.`,
  ];
  if (!digest) return [...lines, 'It has not been assessed yet.'].join('\n');
  const failed = digest.validations.filter((v) => !v.passed);
  lines.push(
    `Assessment ${digest.status}: ${digest.validations.length - failed.length} of ${digest.validations.length} checks passed${failed.length ? `, ${failed.length} need attention` : ''}.`,
  );
  for (const item of digest.items) lines.push(`- ${item.name}: ${item.status.replace(/_/g, ' ')} — ${item.summary}.`);
  for (const v of failed) lines.push(`- Check ${v.check} (${v.severity}): ${v.message}.`);
  if (digest.error) lines.push(`The assessment failed: ${digest.error}.`);
  return lines.join('\n');
}

const resultOf = (checklist: ChecklistView, digest: AssessmentDigest | null) => ({
  kind: 'table',
  title: checklist.title,
  checklist_id: checklist.checklist_id,
  columns: ['item', 'status', 'summary'],
  rows: (
    digest?.items ??
    checklist.items.map((i) => ({ index: i.index, name: i.label, status: i.status, summary: i.notes ?? '' }))
  ).map((i) => ({ index: i.index, item: i.name, status: i.status, summary: i.summary })),
  total_rows: checklist.items.length,
  validations: digest?.validations ?? [],
  entities: [{ entity_id: checklist.entity_id, name: checklist.entity_id, entity_type: checklist.entity_type }],
});

export function checklistAgentTools(deps: PlatformDeps, signal: () => AbortSignal): ToolProvider {
  const visible = async (tenantId: string, checklistId: string) => {
    const checklist = await getChecklist(deps.knex, tenantId, checklistId);
    if (!checklist) throw new NotFound(`checklist ${checklistId} not found`);
    return checklist;
  };
  /** Starts a run unless one completed already, and waits for it: the tool answers with its outcome. */
  const assess = async (caller: ToolCaller, checklist: ChecklistView, rerun: boolean) => {
    const context = contextOf(caller);
    const assessmentId = randomUUID();
    const started = await startAssessment(deps, context, {
      type: 'StartAssessment',
      assessmentId,
      checklistId: checklist.checklist_id,
      templateId: checklist.template_id,
      entityId: checklist.entity_id,
      startedBy: caller.userId,
      rerun,
    });
    if (started) await runAssessment(deps, context, checklist.checklist_id, assessmentId, caller.signal ?? signal());
    return assessmentDigest(deps.store, caller.tenantId, checklist.checklist_id);
  };

  /** The oil lease a well's Form PR checklist is assessed on (Statewide Rule 58 files oil per lease); null when the checklist is its own unit. */
  const formPrLeaseOf = async (tenantId: string, checklist: ChecklistView) => {
    if (checklist.template_id !== 'form_pr' || !/^well$/i.test(checklist.entity_type)) return null;
    // A well with no Form PR unit at all (an oil well on a gas lease) was already said so by its assessment.
    const { unit } = await loadFormPrUnit(deps.knex, tenantId, 'Well', checklist.entity_id).catch(() => ({
      unit: null,
    }));
    return unit?.kind === 'oil_lease'
      ? `${unit.entity.properties.name ?? unit.entity.entityId} (${unit.entity.entityId})`
      : null;
  };

  const StartArgs = z
    .object({
      form: z
        .string()
        .min(1)
        .max(40)
        .describe(`the filing: ${FILING_TEMPLATES.map((t) => `${t.templateId} (Form ${t.form})`).join(', ')}`),
      entity_id: z
        .string()
        .min(1)
        .max(200)
        .describe('API number of the well, or the lease id (Form PR of an oil lease)'),
      entity_type: z.enum(['Well', 'Lease']).default('Well').describe('Lease for a Form PR filed per oil lease'),
      period: z
        .string()
        .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
        .optional()
        .describe('reporting month of a Form PR; default last month'),
    })
    .strict();
  const startTool: AgentTool = {
    name: 'start_checklist',
    description:
      'Starts a filing checklist (Form PR, R-32, W-1, W-2/G-1, W-3X) for a well (or, Form PR, an oil lease) and assesses it against the knowledge graph: items, figures and validations.',
    parameters: StartArgs,
    async run(args, caller) {
      const a = args as z.infer<typeof StartArgs>;
      const template = templateOfForm(a.form);
      const id = await openChecklist(deps, contextOf(caller), {
        template_id: template?.templateId ?? a.form,
        entity_id: a.entity_id,
        entity_type: a.entity_type,
        period: a.period,
      });
      const checklist = await visible(caller.tenantId, id);
      const digest = await assess(caller, checklist, false);
      const lease = await formPrLeaseOf(caller.tenantId, checklist);
      const filedOn = lease
        ? `Form PR of well ${checklist.entity_id} is filed with its oil lease ${lease}: the checklist is assessed on the lease's wells and volumes.`
        : null;
      return {
        content: [describe(checklist, digest), ...(filedOn ? [filedOn] : [])].join('\n'),
        result: resultOf(checklist, digest),
      };
    },
  };

  const ReadArgs = z
    .object({
      checklist_id: z.string().uuid(),
      rerun: z.boolean().default(false).describe('assess again even if an assessment completed'),
    })
    .strict();
  const readTool: AgentTool = {
    name: 'checklist_assessment',
    description:
      "A filing checklist's status and its assessment: each item's outcome and the validations that failed. Assesses it first when it never was.",
    parameters: ReadArgs,
    async run(args, caller) {
      const a = args as z.infer<typeof ReadArgs>;
      const checklist = await visible(caller.tenantId, a.checklist_id);
      const existing = await assessmentDigest(deps.store, caller.tenantId, checklist.checklist_id);
      const digest = !existing || a.rerun ? await assess(caller, checklist, a.rerun) : existing;
      return { content: describe(checklist, digest), result: resultOf(checklist, digest) };
    },
  };

  const NoteArgs = z
    .object({
      checklist_id: z.string().uuid(),
      item_index: z.number().int().min(0),
      notes: z.string().min(1).max(10_000),
    })
    .strict();
  const noteTool: AgentTool = {
    name: 'add_checklist_note',
    description: "Writes a note on one item of a filing checklist that is in progress (replaces the item's note).",
    parameters: NoteArgs,
    async run(args, caller) {
      const a = args as z.infer<typeof NoteArgs>;
      await visible(caller.tenantId, a.checklist_id);
      await updateChecklistItem(deps, contextOf(caller), a.checklist_id, a.item_index, { notes: a.notes });
      const checklist = await visible(caller.tenantId, a.checklist_id);
      const item = checklist.items.find((i) => i.index === a.item_index)!;
      return {
        content: `Noted on item ${item.index} (${item.label}) of checklist ${checklist.checklist_id}: "${a.notes}".`,
        result: { kind: 'checklist_item', checklist_id: checklist.checklist_id, item },
      };
    },
  };

  const tools = [startTool, readTool, noteTool];
  return { tools: async () => tools };
}
