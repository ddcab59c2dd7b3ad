import { creationFacts, findVertex, type VertexView } from '../../queries/graph/entities';
import { type EdgeSchemaFacts, edgeSchemaFacts, isVertexLabel } from '../../queries/graph/graph-schema';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { lastingRefusal } from '../../src/platform/reactors/reaction';
import { type FactReader, type ReactionCommand, type Reactor, tenantOf } from '../../src/platform/reactors/reactor';
import { approvalAggregate, approvalState } from '../../streams/approvals/approval';
import {
  checklistAggregate,
  type ChecklistState,
  evolveChecklist,
  readChecklistEvent,
} from '../../streams/checklists/checklist';
import { edgeStream, namespaceOf, vertexStream } from '../../streams/graph/names';
import { toStoredProperties } from '../../streams/graph/properties';
import { checklistFacts, checklistHistory } from '../checklists/checklist-history';
import { graphLabelOf } from '../checklists/checklist-facts';
import {
  type FilingFacts,
  filingFailureDecider,
  filingEntityId,
  filingFor,
  filingUnitOf,
  type RecordFiling,
  recordFilingDecider,
} from '../checklists/record-filing';
import { type CreateEdge, createEdgeDecider, decideCreateEdge } from './create-edge';
import { type CreateEntity, createEntityDecider } from './create-entity';
import { entityIdReservation } from './entity-id-reservation';
import { type UpdateEntity, updateEntityDecider } from './update-entity';

/** What recording a checklist's filing decides from, read from the log and the graph. */
export type FilingPackageFacts =
  | { status: 'nothing_to_file' | 'filed' }
  | { status: 'entity_missing'; tenantId: string; checklistId: string; approvalId: string; reason: string }
  | {
      status: 'to_file';
      tenantId: string;
      filing: FilingFacts;
      /** The unit the filing is recorded on (the checklist's entity, or an oil well's lease). */
      unit: VertexView;
      creation: { labelKnown: boolean; entityIdTaken: boolean };
      schema: EdgeSchemaFacts;
      fromLabelKnown: boolean;
      /** The package is in the graph already (an earlier attempt stopped before its edge). */
      packageRecorded: boolean;
    };

/**
 * Reads what the filing of a checklist's approved submission needs. A checklist with no
 * approved submission files nothing (an exception granted); an approval not decided yet is an
 * error (retried), never a decision.
 */
export async function filingPackageFacts(
  read: FactReader,
  tenantId: string,
  checklistId: string,
): Promise<FilingPackageFacts> {
  const stream = checklistAggregate.stream(tenantId, checklistId);
  const { created, events } = await checklistHistory(read.store, stream);
  const state = events.reduce(evolveChecklist, { status: 'none' } as ChecklistState);
  const approvalId = state.status === 'none' ? undefined : state.filing?.approvalId;
  const submitted = events.find((e) => e.type === 'ChecklistSubmitted' && e.data.approvalId === approvalId);
  if (!approvalId || submitted?.type !== 'ChecklistSubmitted') return { status: 'nothing_to_file' };
  if (state.status !== 'none' && state.filing?.filed) return { status: 'filed' };
  const approvalStream = approvalAggregate.stream(tenantId, approvalId);
  const approval = await approvalState(read.store, approvalStream);
  if (approval.status === 'none' || approval.status === 'pending')
    throw new Error(`approval ${approvalId} is not decided`);
  const requested = (await read.store.readStream(approvalStream, { limit: 1 })).map(approvalAggregate.read)[0];
  const payload = requested?.type === 'ApprovalRequested' ? requested.data.payload : {};
  const namespace = namespaceOf(tenantId);
  const entity = await findVertex(read.knex, namespace, graphLabelOf(created.entityType), created.entityId);
  if (!entity)
    return {
      status: 'entity_missing',
      tenantId,
      checklistId,
      approvalId,
      reason: `the checklist's ${created.entityType} ${created.entityId} is not in the graph`,
    };
  const unit = await filingUnitOf(read.knex, namespace, created.templateId, entity);
  const filingId = filingEntityId(checklistId);
  const [creation, schema, fromLabelKnown, recorded] = await Promise.all([
    creationFacts(read.knex, namespace, 'FilingPackage', filingId),
    edgeSchemaFacts(read.knex, 'HAS_FILING', unit.label, 'FilingPackage'),
    isVertexLabel(read.knex, unit.label),
    findVertex(read.knex, namespace, 'FilingPackage', filingId),
  ]);
  return {
    status: 'to_file',
    tenantId,
    filing: {
      checklist: checklistFacts(created),
      approvalId,
      submittedBy: submitted.data.submittedBy,
      submittedAt: submitted.data.submittedAt,
      decision: approval.decision,
      payload,
      entity: unit,
    },
    unit,
    creation,
    schema,
    fromLabelKnown,
    packageRecorded: recorded !== undefined && recorded !== null,
  };
}

const STEP = 'record-filing';

/** The filing's own edge: already there (a finished earlier attempt) is no failure. */
const createEdgeOnce: typeof createEdgeDecider = {
  ...createEdgeDecider,
  decide: (command, state) => (state.status === 'none' ? decideCreateEdge(command, state) : []),
};

/** The checklist shows why its filing could not be recorded, and waits for an administrator's retry. */
function filingFailed(
  tenantId: string,
  checklistId: string,
  approvalId: string,
  actorId: string,
  reason: string,
): ReactionCommand {
  return {
    step: STEP,
    actorId,
    writes: [
      {
        decider: filingFailureDecider,
        stream: checklistAggregate.stream(tenantId, checklistId),
        command: { type: 'RecordFilingFailure', approvalId, reason, attemptedBy: actorId },
      },
    ],
  };
}

/**
 * Given the facts of an approved filing, then the commands that record it: the FilingPackage
 * (with the unit's last-filed period moved forward, in one atomic write), then its HAS_FILING
 * edge from the unit together with `ChecklistFiled`. Two writes, package first: the store
 * orders one append's streams by name, which would put the edge ahead of its package in the
 * log, and the graph drops an edge whose end is not there yet. A crash in between leaves the
 * package without its edge and the checklist not filed; the replay and the administrator's
 * retry find the package and finish. A refusal no retry mends (a relationship rule forbids the
 * edge, the entity is gone) records `ChecklistFilingFailed` with its reason instead; the rule
 * is checked before anything is written, so a forbidden edge leaves nothing behind.
 */
export function filingPackageCommands(facts: FilingPackageFacts, actorId: string): ReactionCommand[] {
  if (facts.status === 'entity_missing')
    return [filingFailed(facts.tenantId, facts.checklistId, facts.approvalId, actorId, facts.reason)];
  if (facts.status !== 'to_file') return [];
  const { tenantId, filing, unit } = facts;
  const { checklistId } = filing.checklist;
  const { approvalId } = filing;
  const failed = (reason: string) => filingFailed(tenantId, checklistId, approvalId, actorId, reason);
  const plan = filingFor(filing);
  const namespace = namespaceOf(tenantId);
  const filingId = plan.edge.to_id;
  // Ids drawn from the checklist and its approval: a retry files the same package, never a second one.
  const vertexId = derivedUuid('checklists.filing-package', tenantId, checklistId, approvalId);
  const edgeId = derivedUuid('checklists.filing-edge', tenantId, checklistId, approvalId);
  const createPackage: CreateEntity = {
    type: 'CreateEntity',
    vertexId,
    namespace,
    label: 'FilingPackage',
    entityId: filingId,
    properties: toStoredProperties(plan.filing.properties).set,
    ...facts.creation,
  };
  const createHasFiling: CreateEdge = {
    type: 'CreateEdge',
    edgeId,
    namespace,
    edgeLabel: 'HAS_FILING',
    fromLabel: unit.label,
    toLabel: 'FilingPackage',
    properties: {},
    fromLabelKnown: facts.fromLabelKnown,
    toLabelKnown: facts.creation.labelKnown,
    schema: facts.schema,
    fromId: unit.id,
    toId: vertexId,
  };
  try {
    decideCreateEdge(createHasFiling, { status: 'none' });
  } catch (error) {
    const reason = lastingRefusal(error);
    if (reason === null) throw error;
    return [failed(reason)];
  }
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
    filedBy: actorId,
  };
  const recordPackage: ReactionCommand = {
    step: STEP,
    actorId,
    writes: [
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
    whenRefused: failed,
  };
  const recordEdge: ReactionCommand = {
    step: STEP,
    actorId,
    writes: [
      { decider: createEdgeOnce, stream: edgeStream(tenantId, edgeId), command: createHasFiling },
      { decider: recordFilingDecider, stream: checklistAggregate.stream(tenantId, checklistId), command: filed },
    ],
    whenRefused: failed,
  };
  return facts.packageRecorded ? [recordEdge] : [recordPackage, recordEdge];
}

/** The checklist a reviewed event belongs to, when the review approved its filing. */
function approvedChecklist(recorded: RecordedEvent): { tenantId: string; checklistId: string } | null {
  const reviewed = readChecklistEvent(recorded);
  if (reviewed.type !== 'ChecklistReviewed' || reviewed.data.decision === 'rejected') return null;
  const tenantId = tenantOf(recorded);
  return { tenantId, checklistId: recorded.stream.slice(checklistAggregate.stream(tenantId, '').length) };
}

/**
 * Filing checklist approved → the graph records the filing package: the FilingPackage, its
 * HAS_FILING edge from the unit and the unit's last-filed period, and the checklist `filed`
 * (compliance re-assesses the unit after that, `compliance.reassess-after-filing`). A filing
 * that cannot be recorded leaves the checklist `filing_failed` with the reason. Replayed after
 * a crash, the reaction finds what was done (the same derived ids) and finishes the rest. A
 * rejection records nothing: the checklist shows the reviewer's reason.
 *
 * It was the checklists' `checklists.record-filing` (which also re-assessed): it takes over
 * that lane's checkpoint.
 */
export const recordFilingPackageReactor: Reactor<FilingPackageFacts> = {
  name: 'graph.record-filing-package',
  handles: ['ChecklistReviewed'],
  replaces: ['checklists.record-filing'],
  async facts(recorded, read) {
    const approved = approvedChecklist(recorded);
    return approved ? filingPackageFacts(read, approved.tenantId, approved.checklistId) : { status: 'nothing_to_file' };
  },
  react(recorded, facts) {
    const reviewed = readChecklistEvent(recorded);
    if (reviewed.type !== 'ChecklistReviewed') return [];
    return filingPackageCommands(facts, reviewed.data.reviewerId);
  },
};
