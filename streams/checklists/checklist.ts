import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';
import { ITEM_TYPES } from './filing-templates';
import { DECISIONS } from '../../src/platform/published/decisions';

/**
 * A filing checklist made from a shipped template. Status moves:
 *
 *   in_progress ─submit─▶ in_review ─approved|modified─▶ approved
 *                              └──────rejected─────────▶ in_progress (returned for rework)
 *   in_progress ─exception─▶ exception_requested ─approved|modified─▶ exception_granted
 *                                     └──────────rejected───────────▶ in_progress
 *   in_progress | in_review | exception_requested ─reject─▶ rejected
 *   approved ─filing could not be recorded─▶ filing_failed ─filed (administrator's retry)─▶ approved
 *
 * exception_granted and rejected are final; approved and filing_failed change only by the
 * filing of the approved submission (docs/checklists.md, "Filing"). Items and artifacts change only
 * while the checklist is in progress. The approval's decision reaches the checklist as
 * `ChecklistReviewed`, naming the approval it answers.
 */
export const CHECKLIST_STATUSES = [
  'in_progress',
  'in_review',
  'exception_requested',
  'approved',
  'filing_failed',
  'exception_granted',
  'rejected',
] as const;
export type ChecklistStatus = (typeof CHECKLIST_STATUSES)[number];
export const ITEM_STATUSES = ['not_started', 'in_progress', 'complete', 'blocked'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
/** Bounded decision state: a checklist keeps at most this many artifacts per item. */
export const MAX_ARTIFACTS_PER_ITEM = 20;

const Item = z.object({ index: z.number().int(), key: z.string(), label: z.string(), itemType: z.enum(ITEM_TYPES) });

export const ChecklistEventSchemas = {
  ChecklistCreated: z.object({
    checklistId: z.string(),
    templateId: z.string(),
    form: z.string(),
    title: z.string(),
    entityId: z.string(),
    entityType: z.string(),
    domain: z.string(),
    period: z.string().nullable(),
    dueDate: z.string().nullable(),
    items: z.array(Item),
    createdBy: z.string(),
    createdAt: z.string(),
  }),
  ChecklistUpdated: z.object({
    title: z.string().optional(),
    period: z.string().nullable().optional(),
    dueDate: z.string().nullable().optional(),
    metadata: z.record(z.unknown()).optional(),
    updatedBy: z.string(),
    updatedAt: z.string(),
  }),
  ChecklistItemUpdated: z.object({
    index: z.number().int(),
    status: z.enum(ITEM_STATUSES).optional(),
    notes: z.string().nullable().optional(),
    updatedBy: z.string(),
    updatedAt: z.string(),
  }),
  /** `reviewerId`/`summary`: what the submitter asked of the review; the approval reactor opens it with them. */
  ChecklistSubmitted: z.object({
    approvalId: z.string(),
    submittedBy: z.string(),
    submittedAt: z.string(),
    reviewerId: z.string().nullable().optional(),
    summary: z.string().nullable().optional(),
  }),
  ChecklistExceptionRequested: z.object({
    approvalId: z.string(),
    reason: z.string(),
    itemIndexes: z.array(z.number().int()),
    requestedUntil: z.string().nullable(),
    requestedBy: z.string(),
    requestedAt: z.string(),
    reviewerId: z.string().nullable().optional(),
  }),
  ChecklistReviewed: z.object({
    approvalId: z.string(),
    decision: z.enum(DECISIONS),
    reviewerId: z.string(),
    comments: z.string().nullable(),
    reviewedAt: z.string(),
  }),
  ChecklistRejected: z.object({
    reason: z.string(),
    rejectedBy: z.string(),
    rejectedAt: z.string(),
    approvalId: z.string().nullable(),
  }),
  /**
   * The approved submission is recorded in the graph: `filingId` is the FilingPackage's
   * entity_id, `unit` the entity it was filed on (an oil well's Form PR files on its lease).
   */
  ChecklistFiled: z.object({
    approvalId: z.string(),
    filingId: z.string(),
    unit: z.object({ label: z.string(), entityId: z.string() }),
    advanced: z.record(z.string()),
    filedBy: z.string(),
    filedAt: z.string(),
  }),
  /** The filing could not be recorded (nothing of it was): why, for the submitter, the reviewer and an administrator's retry. */
  ChecklistFilingFailed: z.object({
    approvalId: z.string(),
    reason: z.string(),
    attemptedBy: z.string(),
    failedAt: z.string(),
  }),
  /** Four eyes: the submitter tried to reject their own submission. Recorded, and nothing changes. */
  ChecklistRejectionRefused: z.object({
    attemptedBy: z.string(),
    reason: z.string(),
    refusedAt: z.string(),
    approvalId: z.string().nullable(),
  }),
  ArtifactAdded: z.object({
    artifactId: z.string(),
    itemIndex: z.number().int(),
    artifactType: z.string(),
    filename: z.string(),
    contentType: z.string(),
    sizeBytes: z.number().int(),
    /** Key of the bytes in the content-addressed blob table; the bytes are never evented. */
    sha256: z.string(),
    source: z.enum(['upload', 'assessment']),
    addedBy: z.string(),
    addedAt: z.string(),
  }),
  ArtifactRemoved: z.object({
    artifactId: z.string(),
    itemIndex: z.number().int(),
    removedBy: z.string(),
    removedAt: z.string(),
  }),
};

export type ChecklistEvent = EventsOf<typeof ChecklistEventSchemas>;
export const readChecklistEvent = eventReader('checklist', ChecklistEventSchemas);

export interface ChecklistItemState {
  index: number;
  label: string;
  status: ItemStatus;
}

interface ChecklistFields {
  checklistId: string;
  templateId: string;
  entityId: string;
  items: ChecklistItemState[];
  /** artifact id → item index */
  artifacts: Record<string, number>;
  /** The approval a submission or exception request waits on; null while none is pending. */
  pendingApprovalId: string | null;
  /** Who submitted (or asked the exception) that the pending approval reviews; null while none is pending. */
  submittedBy: string | null;
  /** The approved submission's filing: which approval, and whether it is recorded; null before an approval. */
  filing: { approvalId: string; filed: boolean } | null;
}

export type ChecklistState = { status: 'none' } | ({ status: ChecklistStatus } & ChecklistFields);
export type ExistingChecklist = Exclude<ChecklistState, { status: 'none' }>;

function reviewed(state: ExistingChecklist, decision: (typeof DECISIONS)[number]): ChecklistStatus {
  if (decision === 'rejected') return 'in_progress';
  return state.status === 'exception_requested' ? 'exception_granted' : 'approved';
}

export function evolveChecklist(state: ChecklistState, event: ChecklistEvent): ChecklistState {
  if (event.type === 'ChecklistCreated') {
    const d = event.data;
    return {
      status: 'in_progress',
      checklistId: d.checklistId,
      templateId: d.templateId,
      entityId: d.entityId,
      items: d.items.map((i) => ({ index: i.index, label: i.label, status: 'not_started' })),
      artifacts: {},
      pendingApprovalId: null,
      submittedBy: null,
      filing: null,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'ChecklistUpdated':
      return state;
    case 'ChecklistItemUpdated': {
      const { index, status } = event.data;
      if (!status) return state;
      return { ...state, items: state.items.map((i) => (i.index === index ? { ...i, status } : i)) };
    }
    case 'ChecklistSubmitted':
      return {
        ...state,
        status: 'in_review',
        pendingApprovalId: event.data.approvalId,
        submittedBy: event.data.submittedBy,
      };
    case 'ChecklistExceptionRequested':
      return {
        ...state,
        status: 'exception_requested',
        pendingApprovalId: event.data.approvalId,
        submittedBy: event.data.requestedBy,
      };
    case 'ChecklistReviewed': {
      const status = reviewed(state, event.data.decision);
      const filing = status === 'approved' ? { approvalId: event.data.approvalId, filed: false } : state.filing;
      return { ...state, status, pendingApprovalId: null, submittedBy: null, filing };
    }
    case 'ChecklistFiled':
      return { ...state, status: 'approved', filing: { approvalId: event.data.approvalId, filed: true } };
    case 'ChecklistFilingFailed':
      return { ...state, status: 'filing_failed', filing: { approvalId: event.data.approvalId, filed: false } };
    case 'ChecklistRejected':
      return { ...state, status: 'rejected', pendingApprovalId: null, submittedBy: null };
    case 'ChecklistRejectionRefused':
      return state;
    case 'ArtifactAdded':
      return { ...state, artifacts: { ...state.artifacts, [event.data.artifactId]: event.data.itemIndex } };
    case 'ArtifactRemoved': {
      const artifacts = { ...state.artifacts };
      delete artifacts[event.data.artifactId];
      return { ...state, artifacts };
    }
  }
}

/** The filing a submitted checklist becomes: its FilingPackage vertex's entity id and its id under /filings. */
export const filingEntityId = (checklistId: string) => `filing-${checklistId}`;

export const checklistAggregate: Aggregate<ChecklistState, ChecklistEvent> = {
  stream: (tenantId, id) => `checklists.checklist-${tenantId}-${id}`,
  eventTypes: Object.keys(ChecklistEventSchemas) as ChecklistEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveChecklist,
  read: readChecklistEvent,
};
