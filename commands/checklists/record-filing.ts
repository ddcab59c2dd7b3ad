import type { Knex } from 'knex';
import { creationFacts, edgesOf, findVertex, type VertexView } from '../../queries/graph/entities';
import { edgeSchemaFacts, isVertexLabel } from '../../queries/graph/graph-schema';
import type { Reactor } from '../../src/platform/reactors/reactor';
import { reactionContext } from '../../src/platform/reactors/reactor';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, DomainError, NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import { DEFAULT_PACKS } from '../compliance/packs';
import { approvalAggregate, type ApprovalDecisionRecord, approvalState } from '../../streams/approvals/approval';
import {
  checklistAggregate,
  type ChecklistEvent,
  type ChecklistState,
  evolveChecklist,
  filingEntityId,
  readChecklistEvent,
} from '../../streams/checklists/checklist';
import { edgeStream, namespaceOf, vertexStream } from '../../streams/graph/names';
import { type Properties, toStoredProperties } from '../../streams/graph/properties';
import { assess } from '../compliance/record-assessment';
import { type CreateEdge, createEdgeDecider, decideCreateEdge } from '../graph/create-edge';
import { type CreateEntity, createEntityDecider } from '../graph/create-entity';
import { entityIdReservation } from '../graph/entity-id-reservation';
import { type UpdateEntity, updateEntityDecider } from '../graph/update-entity';
import { existing } from './guards';
import { checklistFacts, checklistHistory } from './checklist-history';
import { type ChecklistFacts, graphLabelOf } from './checklist-facts';

type ChecklistCreatedData = Extract<ChecklistEvent, { type: 'ChecklistCreated' }>['data'];
type ChecklistSubmittedData = Extract<ChecklistEvent, { type: 'ChecklistSubmitted' }>['data'];

export interface FilingFacts {
  checklist: ChecklistFacts;
  approvalId: string;
  submittedBy: string;
  submittedAt: string;
  decision: ApprovalDecisionRecord;
  /** The approval's payload as the reviewer saw it (its figures are what was filed). */
  payload: Record<string, unknown>;
  entity: { id: string; label: string; entity_id: string; properties: Properties };
}

export interface FilingPlan {
  filing: { label: 'FilingPackage'; properties: Record<string, unknown> };
  edge: { from_label: string; from_id: string; to_label: 'FilingPackage'; to_id: string; edge_label: 'HAS_FILING' };
  /** The entity's filing properties to advance; null when the filing moves none. */
  advance: Record<string, string> | null;
}

const PERIOD = /^\d{4}-\d{2}$/;

/** The entity property that records the last filed period of a form (the compliance packs read it). */
const FILED_PERIOD_PROPERTY: Record<string, string> = { form_pr: 'form_pr_period' };

export { filingEntityId };

/**
 * Given an approved (or approved-with-modifications) filing checklist, then the filing to
 * record: a FilingPackage with what was filed, who approved it and when, the HAS_FILING
 * edge from the entity, and the entity's last-filed period moved forward (never back: an
 * older period filed late does not hide a newer one).
 */
export function filingFor(facts: FilingFacts): FilingPlan {
  const { checklist, decision, payload, entity } = facts;
  const period = checklist.period;
  const properties: Record<string, unknown> = {
    entity_id: filingEntityId(checklist.checklistId),
    name: `${String(payload.form_label ?? checklist.templateId)}${period ? ` ${period}` : ''}`,
    form: checklist.templateId,
    period: period ?? '',
    status: 'filed',
    approval_id: facts.approvalId,
    checklist_id: checklist.checklistId,
    decision: decision.decision,
    approved_by: decision.reviewerId,
    approved_at: decision.decidedAt,
    submitted_by: facts.submittedBy,
    submitted_at: facts.submittedAt,
    figures: payload.figures ?? [],
    ...(decision.modifications ? { modifications: decision.modifications } : {}),
    ...(decision.comments ? { review_comments: decision.comments } : {}),
  };
  const property = FILED_PERIOD_PROPERTY[checklist.templateId];
  const current = property ? entity.properties[property] : undefined;
  const advances =
    !!property && !!period && PERIOD.test(period) && !(current && PERIOD.test(current) && current >= period);
  return {
    filing: { label: 'FilingPackage', properties },
    edge: {
      from_label: entity.label,
      from_id: entity.id,
      to_label: 'FilingPackage',
      to_id: filingEntityId(checklist.checklistId),
      edge_label: 'HAS_FILING',
    },
    advance: advances ? { [property]: period! } : null,
  };
}

/**
 * The entity a checklist's filing is recorded on: the checklist's own, except that an oil
 * well's Form PR is reported by its lease (the production pack reads the lease's
 * `form_pr_period`). A gas well, and an oil well the graph knows no lease of, file on their own.
 */
export async function filingUnitOf(
  knex: Knex,
  namespace: string,
  templateId: string,
  entity: VertexView,
): Promise<VertexView> {
  if (templateId !== 'form_pr' || entity.label !== 'Well' || entity.properties.well_type === 'gas') return entity;
  const [lease] = (await edgesOf(knex, namespace, entity.id, { edgeLabel: 'LOCATED_IN', direction: 'out' })).filter(
    (e) => e.to_label === 'Lease',
  );
  return lease ? lease.neighbor : entity;
}

type FilingDeps = Pick<PlatformDeps, 'knex' | 'store' | 'handle' | 'clock' | 'metrics'>;

interface RecordFiling {
  type: 'RecordFiling';
  approvalId: string;
  filingId: string;
  unit: { label: string; entityId: string };
  advanced: Record<string, string>;
  filedBy: string;
}

/** Only the approved submission's filing is recorded, once. */
export function decideRecordFiling(command: RecordFiling, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = existing(state);
  if (
    checklist.filing?.approvalId !== command.approvalId ||
    (checklist.status !== 'approved' && checklist.status !== 'filing_failed')
  ) {
    throw new Conflict(`Cannot file: the checklist is ${checklist.status}`, { status: checklist.status });
  }
  if (checklist.filing.filed) return [];
  const { approvalId, filingId, unit, advanced, filedBy } = command;
  return [
    { type: 'ChecklistFiled', data: { approvalId, filingId, unit, advanced, filedBy, filedAt: now.toISOString() } },
  ];
}

interface RecordFilingFailure {
  type: 'RecordFilingFailure';
  approvalId: string;
  reason: string;
  attemptedBy: string;
}

export function decideFilingFailure(command: RecordFilingFailure, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = existing(state);
  if (checklist.filing?.approvalId !== command.approvalId || checklist.filing.filed) return [];
  const { approvalId, reason, attemptedBy } = command;
  return [{ type: 'ChecklistFilingFailed', data: { approvalId, reason, attemptedBy, failedAt: now.toISOString() } }];
}

/** The filing's own edge: already there (a finished earlier attempt) is no failure. */
const createEdgeOnce: typeof createEdgeDecider = {
  ...createEdgeDecider,
  decide: (command, state) => (state.status === 'none' ? decideCreateEdge(command, state) : []),
};
const recordFilingDecider: Decider<RecordFiling, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideRecordFiling,
};
const filingFailureDecider: Decider<RecordFilingFailure, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideFilingFailure,
};

/**
 * A failure no retry of the same facts can mend (a relationship rule that forbids the edge,
 * an entity gone from the graph): the checklist shows it and waits for an administrator's
 * retry. A concurrent write or an unavailable store is retried by the reactor instead.
 */
function lastingFailure(error: unknown): string | null {
  if (!(error instanceof DomainError) || error.kind === 'conflict' || error.kind === 'unavailable') return null;
  return error instanceof ValidationFailed ? error.issues.map((i) => i.msg).join('; ') : error.message;
}

export type FilingOutcome =
  { status: 'filed'; filingId: string } | { status: 'failed'; reason: string } | { status: 'nothing_to_file' };

/**
 * Records the filing of a checklist's approved submission: the FilingPackage, its HAS_FILING
 * edge from the unit, the unit's last-filed period moved forward and `ChecklistFiled`, all in
 * one atomic append (nothing is left half-filed), then re-assesses the unit. A lasting failure
 * appends `ChecklistFilingFailed` with the reason instead; anything else is thrown.
 */
export async function fileChecklist(
  deps: FilingDeps,
  context: CommandContext,
  checklistId: string,
): Promise<FilingOutcome> {
  const stream = checklistAggregate.stream(context.tenantId, checklistId);
  const { created, events } = await checklistHistory(deps.store, stream);
  const state = events.reduce(evolveChecklist, { status: 'none' } as ChecklistState);
  const approvalId = state.status === 'none' ? undefined : state.filing?.approvalId;
  const submitted = events.find((e) => e.type === 'ChecklistSubmitted' && e.data.approvalId === approvalId);
  // An exception granted files nothing.
  if (!approvalId || submitted?.type !== 'ChecklistSubmitted') return { status: 'nothing_to_file' };
  if (state.status !== 'none' && state.filing?.filed) return { status: 'filed', filingId: filingEntityId(checklistId) };
  try {
    const filingId = await recordFiling(deps, context, created, submitted.data, approvalId);
    return { status: 'filed', filingId };
  } catch (error) {
    const reason = lastingFailure(error);
    if (reason === null) throw error;
    await deps.handle(
      filingFailureDecider,
      stream,
      { type: 'RecordFilingFailure', approvalId, reason, attemptedBy: context.actorId },
      context,
    );
    return { status: 'failed', reason };
  }
}

async function recordFiling(
  deps: FilingDeps,
  context: CommandContext,
  created: ChecklistCreatedData,
  submitted: ChecklistSubmittedData,
  approvalId: string,
): Promise<string> {
  const { tenantId } = context;
  const approvalStream = approvalAggregate.stream(tenantId, approvalId);
  const approval = await approvalState(deps.store, approvalStream);
  if (approval.status === 'none' || approval.status === 'pending')
    throw new Error(`approval ${approvalId} is not decided`);
  const requested = (await deps.store.readStream(approvalStream, { limit: 1 })).map(approvalAggregate.read)[0];
  const payload = requested?.type === 'ApprovalRequested' ? requested.data.payload : {};
  const namespace = namespaceOf(tenantId);
  const entity = await findVertex(deps.knex, namespace, graphLabelOf(created.entityType), created.entityId);
  if (!entity) throw new NotFound(`the checklist's ${created.entityType} ${created.entityId} is not in the graph`);
  const unit = await filingUnitOf(deps.knex, namespace, created.templateId, entity);
  const checklist = checklistFacts(created);
  const plan = filingFor({
    checklist,
    approvalId,
    submittedBy: submitted.submittedBy,
    submittedAt: submitted.submittedAt,
    decision: approval.decision,
    payload,
    entity: unit,
  });
  const filingId = plan.edge.to_id;
  // Ids drawn from the checklist and its approval: a retry files the same package, never a second one.
  const vertexId = derivedUuid('checklists.filing-package', tenantId, checklist.checklistId, approvalId);
  const edgeId = derivedUuid('checklists.filing-edge', tenantId, checklist.checklistId, approvalId);
  const properties = toStoredProperties(plan.filing.properties).set;
  const [facts, schema, fromLabelKnown] = await Promise.all([
    creationFacts(deps.knex, namespace, 'FilingPackage', filingId),
    edgeSchemaFacts(deps.knex, 'HAS_FILING', unit.label, 'FilingPackage'),
    isVertexLabel(deps.knex, unit.label),
  ]);
  const createPackage: CreateEntity = {
    type: 'CreateEntity',
    vertexId,
    namespace,
    label: 'FilingPackage',
    entityId: filingId,
    properties,
    ...facts,
  };
  const createHasFiling: CreateEdge = {
    type: 'CreateEdge',
    edgeId,
    namespace,
    edgeLabel: 'HAS_FILING',
    fromLabel: unit.label,
    toLabel: 'FilingPackage',
    properties: {},
    fromLabelKnown,
    toLabelKnown: facts.labelKnown,
    schema,
    fromId: unit.id,
    toId: vertexId,
  };
  const advance = plan.advance ?? {};
  const updateUnit: UpdateEntity = {
    type: 'UpdateEntity',
    vertexId: unit.id,
    namespace,
    set: advance,
    removed: [],
    imported: { label: unit.label, entityId: unit.entity_id, properties: unit.properties },
  };
  const filed: RecordFiling = {
    type: 'RecordFiling',
    approvalId,
    filingId,
    unit: { label: unit.label, entityId: unit.entity_id },
    advanced: advance,
    filedBy: context.actorId,
  };
  // The rule check before anything is written: a forbidden edge leaves nothing behind.
  decideCreateEdge(createHasFiling, { status: 'none' });
  // Two appends, package first: the store orders one append's streams by name, which would put
  // the edge ahead of its package in the log, and the graph drops an edge whose end is not
  // there yet. A crash in between leaves the package without its edge and the checklist not
  // filed; the reaction's replay and the administrator's retry find the package and finish.
  if (!(await findVertex(deps.knex, namespace, 'FilingPackage', filingId))) {
    await deps.handle.together(
      [
        {
          decider: createEntityDecider,
          stream: vertexStream(tenantId, vertexId),
          command: createPackage,
          options: { reserve: [entityIdReservation(tenantId, 'FilingPackage', filingId)] },
        },
        ...(plan.advance
          ? [{ decider: updateEntityDecider, stream: vertexStream(tenantId, unit.id), command: updateUnit }]
          : []),
      ],
      context,
    );
  }
  await deps.handle.together(
    [
      { decider: createEdgeOnce, stream: edgeStream(tenantId, edgeId), command: createHasFiling },
      {
        decider: recordFilingDecider,
        stream: checklistAggregate.stream(tenantId, checklist.checklistId),
        command: filed,
      },
    ],
    context,
  );
  await assess(deps, DEFAULT_PACKS, context, unit.entity_id);
  if (unit.id !== entity.id) await assess(deps, DEFAULT_PACKS, context, entity.entity_id);
  return filingId;
}

/**
 * POST /checklists/{id}/retry-filing (administrators): files a `filing_failed` checklist again,
 * once the cause is mended; a failure again records the new reason. 409 in any other status.
 */
export async function retryFiling(
  deps: FilingDeps,
  context: CommandContext,
  checklistId: string,
): Promise<FilingOutcome> {
  // Read as the decider's state, so no checklist is the guard's 404 rather than a history error.
  const events = (await deps.store.readStream(checklistAggregate.stream(context.tenantId, checklistId))).map(
    readChecklistEvent,
  );
  const state = existing(events.reduce(evolveChecklist, { status: 'none' } as ChecklistState));
  if (state.status !== 'filing_failed')
    throw new Conflict(`Cannot retry the filing: the checklist is ${state.status}`, { status: state.status });
  return fileChecklist(deps, context, checklistId);
}

/**
 * Filing checklist approved → the filing is recorded in the graph and the unit re-assessed,
 * so its dashboard cell shows the filing within seconds; a filing that cannot be recorded
 * leaves the checklist `filing_failed` with the reason. Replayed after a crash, the reaction
 * finds the filing done (the same derived ids) and only re-assesses. A rejection records
 * nothing here: the cell stays as it is and the checklist shows the reviewer's reason.
 */
export const recordFilingReactor: Reactor = {
  name: 'checklists.record-filing',
  handles: ['ChecklistReviewed'],
  async react(recorded, deps) {
    const reviewed = readChecklistEvent(recorded);
    if (reviewed.type !== 'ChecklistReviewed' || reviewed.data.decision === 'rejected') return;
    const context = reactionContext(recorded, 'record-filing', reviewed.data.reviewerId);
    const checklistId = recorded.stream.slice(checklistAggregate.stream(context.tenantId, '').length);
    await fileChecklist(deps, context, checklistId);
  },
};
