import { z } from 'zod';
import type { AgentTool } from '../../platform/agent-tools';
import type { SkillDefinition } from '../../../streams/agents/builtin-skills';

/**
 * The agents context's own tools, built per turn because their effect is on the turn:
 * `load_skill` injects a skill's instructions into the conversation the model sees (as the
 * tool result, which every provider accepts mid-turn), `request_approval` marks the turn for
 * the approval node, which opens the approval and pauses the turn.
 */
export interface ApprovalAsk {
  checkpointType: string;
  payload: Record<string, unknown>;
}

export interface TurnToolHooks {
  skillLoaded(skill: SkillDefinition): void;
  approvalAsked(ask: ApprovalAsk): void;
}

/** One schema object for every turn's `load_skill`: the model-facing JSON schema is converted once per schema object. */
const LoadSkillArgs = z.object({ skill_key: z.string().min(1).max(64) }).strict();

export function loadSkillTool(skills: SkillDefinition[], hooks: TurnToolHooks): AgentTool {
  return {
    name: 'load_skill',
    description: `Loads a skill's instructions into this turn. Skills: ${skills.map((s) => s.key).join(', ') || 'none'}.`,
    parameters: LoadSkillArgs,
    async run(args) {
      const { skill_key } = args as { skill_key: string };
      const skill = skills.find((s) => s.key === skill_key);
      if (!skill) throw new Error(`unknown skill ${skill_key}; known: ${skills.map((s) => s.key).join(', ')}`);
      hooks.skillLoaded(skill);
      return {
        content: `Skill loaded: ${skill.name} (${skill.key})\n${skill.instructions}`,
        result: { kind: 'skill', key: skill.key, name: skill.name, version: skill.version },
      };
    },
  };
}

export const RequestApprovalArgs = z
  .object({
    checkpoint_type: z.string().min(1).max(100).default('filing_submission'),
    summary: z.string().min(1).max(2000),
    form: z.string().max(50).optional().describe('the form to file: form_pr, r_32, w_1, w_2_g_1, w_3x (or PR, R-32…)'),
    filing_type: z.string().max(50).optional().describe('the same as form (older name)'),
    entity_id: z.string().max(200).optional().describe('API number of the well'),
    period: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
      .optional(),
    checklist_id: z.string().uuid().optional().describe('the prepared checklist, when there is one'),
  })
  .strict();
export type RequestApprovalArgs = z.infer<typeof RequestApprovalArgs>;

/** Builds a filing approval's payload (the shared contract: entity, form, period, figures, validations). */
export type PrepareFiling = (request: {
  summary: string;
  form?: string;
  entity_id?: string;
  period?: string;
  checklist_id?: string;
}) => Promise<Record<string, unknown>>;

const FILING_CHECKPOINTS = new Set(['filing_submission', 'filing']);

export function requestApprovalTool(hooks: TurnToolHooks, prepareFiling: PrepareFiling): AgentTool {
  return {
    name: 'request_approval',
    description:
      'Asks a human reviewer to approve before anything is filed or submitted. The turn pauses until the decision. For a filing, name the form, the well (entity_id), the period and the checklist when one was prepared: the reviewer sees its figures and validations.',
    parameters: RequestApprovalArgs,
    async run(args) {
      const a = RequestApprovalArgs.parse(args);
      const form = a.form ?? a.filing_type;
      const payload: Record<string, unknown> = FILING_CHECKPOINTS.has(a.checkpoint_type)
        ? await prepareFiling({
            summary: a.summary,
            form,
            entity_id: a.entity_id,
            period: a.period,
            checklist_id: a.checklist_id,
          })
        : { summary: a.summary, ...(form ? { form } : {}), ...(a.entity_id ? { entity_id: a.entity_id } : {}) };
      hooks.approvalAsked({ checkpointType: a.checkpoint_type, payload });
      return {
        content: `A ${a.checkpoint_type} approval will be requested from a reviewer when this turn ends; nothing is filed before the decision.`,
        result: { kind: 'approval_request', checkpoint_type: a.checkpoint_type, payload },
      };
    },
  };
}
