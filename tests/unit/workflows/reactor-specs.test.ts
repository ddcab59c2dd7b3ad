import { expect } from 'chai';
import {
  reviewApprovalFor,
  type ReviewFacts,
  submissionSummary,
} from '../../../commands/checklists/open-review-approval';
import type { FilingPayload } from '../../../commands/checklists/filing-payload';
import { filingFor, type FilingFacts } from '../../../commands/checklists/record-filing';
import {
  closeRejectedApprovalReactor,
  closingDecision,
  reviewForDecision,
} from '../../../commands/checklists/review-reactors';
import {
  consumedDecision,
  deadlineFinish,
  deadlineMarginMs,
  deadlineMessage,
  startedWithoutEnd,
  turnDeadlineHandler,
} from '../../../commands/agents/turn-deadline';
import { runningHere } from '../../../commands/agents/running-turns';
import { dailyAssessmentMessage, nextAssessmentAt } from '../../../commands/compliance/daily-assessment';
import type { PlatformDeps } from '../../../src/platform/context-module';
import type { RecordedEvent } from '../../../src/platform/eventstore/types';
import { scheduleDecider } from '../../../src/platform/scheduling/schedule';
import type { ApprovalState } from '../../../streams/approvals/approval';
import { given } from '../../support/given';
import { type FilingPackageFacts, recordFilingPackageReactor } from '../../../commands/graph/record-filing-package';
import { reassessAfterFilingReactor } from '../../../commands/compliance/reassess-after-filing';
import { routeDecisionReactor } from '../../../commands/conversations/route-decision';
import { commandContext, graphActor } from '../../../commands/graph/actor';
import { reactionContext, type ReactionCommand } from '../../../src/platform/reactors/reactor';

/** A reaction's commands as a test compares them: steps, actors, streams and commands, operations by name and input. */
function described(commands: ReactionCommand[]) {
  return commands.map((c) => ({
    step: c.step,
    actorId: c.actorId,
    writes: (c.writes ?? []).map((w) => ({
      stream: w.stream,
      command: w.command as Record<string, unknown> & { type: string },
    })),
    operation: c.operation && { name: c.operation.name, input: c.operation.input },
  }));
}

/** Each reactor's mapping, given an event (and the facts it reads), then the command it issues. */
const NOW = '2026-11-26T08:00:00.000Z';

const checklist = {
  checklistId: 'cl1',
  templateId: 'form_pr',
  entityId: '42-501-12345',
  entityType: 'well',
  period: '2026-10',
  items: [
    { index: 0, key: 'well_identification', label: 'Identification' },
    { index: 1, key: 'oil_production', label: 'Oil' },
  ],
};
const well = {
  id: 'v-well',
  label: 'Well',
  entity_id: '42-501-12345',
  properties: {
    name: 'JONES 97',
    api_number: '42-501-12345',
    production_oil_bbls: '3110',
    production_gas_mcf: '9330',
    form_pr_period: '2025-10',
  },
};
const filing: FilingPayload = {
  kind: 'filing',
  summary: 'All 2 items complete; ready to file',
  entity: { id: '42-501-12345', vertex_id: 'v-well', type: 'Well', name: 'JONES 97', api_number: '42-501-12345' },
  form: 'form_pr',
  form_label: 'Form PR monthly production report',
  period: '2026-10',
  figures: [{ label: 'Oil produced', value: 3110, unit: 'bbl', source: 'graph:Well/42-501-12345' }],
  validations: [{ key: 'production_found', label: 'Production', status: 'pass', message: 'production for 2026-10' }],
  checklist_id: 'cl1',
  conversation_id: null,
  execution_id: null,
  filing_type: 'PR',
  entity_id: '42-501-12345',
  template_id: 'form_pr',
};
const facts: ReviewFacts = { checklist, filing };

function recorded(type: string, data: unknown): RecordedEvent {
  return {
    id: 'e1',
    stream: 'checklists.checklist-t1-cl1',
    revision: 3n,
    type,
    data,
    metadata: { tenantId: 't1', actorId: 'op', correlationId: 'c', causationId: 'c' },
    position: { commit: 1n, prepare: 1n },
    recordedAt: new Date(NOW),
  } as unknown as RecordedEvent;
}

describe('reactor specs (given an event, then the command)', () => {
  describe('checklists.open-review-approval', () => {
    it("given ChecklistSubmitted, then RequestApproval with the checklist's approval id and the shared filing payload", () => {
      const command = reviewApprovalFor(
        { type: 'ChecklistSubmitted', approvalId: 'ap1', reviewerId: null, summary: null },
        facts,
      );
      expect(command).to.include({
        approvalId: 'ap1',
        checkpointType: 'filing_submission',
        agentType: 'checklists',
        reviewerStrategy: 'any_reviewer',
        reviewerId: null,
        conversationId: null,
      });
      expect(command.payload).to.deep.equal(filing);
    });

    it("given a submission naming a reviewer, then the approval is named to them; the summary is the submitter's, or says the items are complete", () => {
      const command = reviewApprovalFor(
        { type: 'ChecklistSubmitted', approvalId: 'ap1', reviewerId: 'rev', summary: 'PR Oct' },
        facts,
      );
      expect(command).to.include({ reviewerStrategy: 'named_individual', reviewerId: 'rev' });
      expect(submissionSummary('PR Oct', checklist)).to.equal('PR Oct');
      expect(submissionSummary(null, checklist)).to.equal('All 2 items complete; ready to file');
    });

    it('given a submission whose filing payload could not be built, then no approval is asked for', () => {
      expect(() =>
        reviewApprovalFor(
          { type: 'ChecklistSubmitted', approvalId: 'ap1', reviewerId: null, summary: null },
          { checklist, filing: null },
        ),
      ).to.throw(/without its filing payload/);
    });

    it('given ChecklistExceptionRequested, then a checklist_exception approval with the reason and items', () => {
      const command = reviewApprovalFor(
        {
          type: 'ChecklistExceptionRequested',
          approvalId: 'ap2',
          reviewerId: null,
          reason: 'shut in',
          itemIndexes: [1],
          requestedUntil: null,
        },
        { checklist, filing: null },
      );
      expect(command).to.include({ approvalId: 'ap2', checkpointType: 'checklist_exception' });
      expect(command.payload).to.include({ checklist_id: 'cl1', summary: 'Exception requested: shut in' });
      expect(command.payload.item_indexes).to.deep.equal([1]);
    });
  });

  describe('checklists.record-review', () => {
    const decided = (over: Partial<Record<string, unknown>> = {}) =>
      ({
        status: 'approved',
        approvalId: 'ap1',
        conversationId: null,
        agentType: 'checklists',
        checkpointType: 'filing_submission',
        reviewerId: null,
        requestedBy: 'op',
        requestedAt: NOW,
        checklistId: 'cl1',
        escalationLevel: 0,
        decision: { decision: 'approved', reviewerId: 'rev', comments: 'ok', modifications: null, decidedAt: NOW },
        ...over,
      }) as ApprovalState;

    it("given ApprovalDecided on a checklist's approval, then RecordReview on that checklist with the decision", () => {
      expect(reviewForDecision(decided())).to.deep.equal({
        checklistId: 'cl1',
        command: {
          type: 'RecordReview',
          approvalId: 'ap1',
          decision: { decision: 'approved', reviewerId: 'rev', comments: 'ok', modifications: null, decidedAt: NOW },
        },
      });
    });

    it('given ApprovalDecided on an approval about no checklist, then nothing', () => {
      expect(reviewForDecision(decided({ checklistId: null }))).to.equal(null);
    });
  });

  describe('checklists.close-rejected-approval', () => {
    it('given ChecklistRejected while an approval was pending, then DecideApproval rejected by the same person with the reason', () => {
      const closing = closingDecision(
        recorded('ChecklistRejected', { reason: 'wrong well', rejectedBy: 'rev', rejectedAt: NOW, approvalId: 'ap1' }),
      );
      expect(closing).to.deep.equal({
        approvalId: 'ap1',
        command: {
          type: 'DecideApproval',
          decision: 'rejected',
          reviewerId: 'rev',
          reviewerIsAdmin: false,
          comments: 'wrong well',
          modifications: null,
        },
      });
    });

    it('given ChecklistRejected with nothing pending, then nothing', () => {
      expect(
        closingDecision(
          recorded('ChecklistRejected', { reason: 'x', rejectedBy: 'rev', rejectedAt: NOW, approvalId: null }),
        ),
      ).to.equal(null);
    });
  });

  describe('checklists.record-filing', () => {
    const filing: FilingFacts = {
      checklist,
      approvalId: 'ap1',
      submittedBy: 'op',
      submittedAt: NOW,
      decision: { decision: 'approved', reviewerId: 'rev', comments: null, modifications: null, decidedAt: NOW },
      payload: { form_label: 'Form PR', figures: [{ label: 'Oil produced', value: 3110 }] },
      entity: well,
    };

    it('given an approved Form PR checklist, then a FilingPackage, HAS_FILING from the well and form_pr_period advanced', () => {
      const plan = filingFor(filing);
      expect(plan.filing.properties).to.include({
        entity_id: 'filing-cl1',
        form: 'form_pr',
        period: '2026-10',
        status: 'filed',
        approval_id: 'ap1',
        approved_by: 'rev',
        submitted_by: 'op',
      });
      expect(plan.filing.properties.figures).to.deep.equal([{ label: 'Oil produced', value: 3110 }]);
      expect(plan.edge).to.deep.equal({
        from_label: 'Well',
        from_id: 'v-well',
        to_label: 'FilingPackage',
        to_id: 'filing-cl1',
        edge_label: 'HAS_FILING',
      });
      expect(plan.advance).to.deep.equal({ form_pr_period: '2026-10' });
    });

    it('given a late filing of an older period, then the last filed period does not move back', () => {
      const plan = filingFor({
        ...filing,
        entity: { ...well, properties: { ...well.properties, form_pr_period: '2026-11' } },
      });
      expect(plan.advance).to.equal(null);
    });

    it('given approval with modifications, then the filing records them', () => {
      const plan = filingFor({
        ...filing,
        decision: { ...filing.decision, decision: 'modified', modifications: { oil: 3100 } },
      });
      expect(plan.filing.properties).to.include({ decision: 'modified' });
      expect(plan.filing.properties.modifications).to.deep.equal({ oil: 3100 });
    });
  });

  describe('graph.record-filing-package (given the facts, then the commands)', () => {
    const schema = {
      edgeLabelKnown: true,
      fromAllowed: true,
      toAllowed: true,
      pairAllowed: true,
      allowedFrom: ['Well'],
      allowedTo: ['FilingPackage'],
    };
    const toFile: Extract<FilingPackageFacts, { status: 'to_file' }> = {
      status: 'to_file',
      tenantId: 't1',
      filing: {
        checklist,
        approvalId: 'ap1',
        submittedBy: 'op',
        submittedAt: NOW,
        decision: { decision: 'approved', reviewerId: 'rev', comments: null, modifications: null, decidedAt: NOW },
        payload: { form_label: 'Form PR', figures: [] },
        entity: well,
      },
      unit: well,
      creation: { labelKnown: true, entityIdTaken: false },
      schema,
      fromLabelKnown: true,
      packageRecorded: false,
    };
    const reviewed = {
      ...recorded('ChecklistReviewed', {
        approvalId: 'ap1',
        decision: 'approved',
        reviewerId: 'rev',
        comments: null,
        reviewedAt: NOW,
      }),
      id: 'e-reviewed',
    } as RecordedEvent;

    it('given an approved filing not yet recorded, then the package with the period advanced, then its edge with ChecklistFiled, all as the reviewer', () => {
      const commands = recordFilingPackageReactor.react(reviewed, toFile);
      const shown = described(commands);
      expect(shown.map((c) => c.step)).to.deep.equal(['record-filing', 'record-filing']);
      expect(shown.map((c) => c.actorId)).to.deep.equal(['rev', 'rev']);
      expect(shown[0].writes.map((w) => w.command.type)).to.deep.equal(['CreateEntity', 'UpdateEntity']);
      expect(shown[0].writes[0].command).to.include({ label: 'FilingPackage', entityId: 'filing-cl1' });
      expect(shown[0].writes[1]).to.deep.include({ stream: 'graph.vertex-t1-v-well' });
      expect(shown[0].writes[1].command).to.deep.include({ set: { form_pr_period: '2026-10' } });
      expect(shown[1].writes.map((w) => w.command.type)).to.deep.equal(['CreateEdge', 'RecordFiling']);
      expect(shown[1].writes[1]).to.deep.include({ stream: 'checklists.checklist-t1-cl1' });
      expect(shown[1].writes[1].command).to.deep.include({
        approvalId: 'ap1',
        filingId: 'filing-cl1',
        unit: { label: 'Well', entityId: '42-501-12345' },
        filedBy: 'rev',
      });
    });

    it('given the package recorded by an earlier attempt, then only its edge and ChecklistFiled', () => {
      const shown = described(recordFilingPackageReactor.react(reviewed, { ...toFile, packageRecorded: true }));
      expect(shown.map((c) => c.writes.map((w) => w.command.type))).to.deep.equal([['CreateEdge', 'RecordFiling']]);
    });

    it('given a rule that forbids the edge, then nothing is written but ChecklistFilingFailed with the reason', () => {
      const forbidden = { ...toFile, schema: { ...schema, pairAllowed: false } };
      const shown = described(recordFilingPackageReactor.react(reviewed, forbidden));
      expect(shown).to.have.length(1);
      expect(shown[0].writes[0].command).to.deep.include({ type: 'RecordFilingFailure', approvalId: 'ap1' });
      expect(String(shown[0].writes[0].command.reason)).to.match(/no HAS_FILING rule joins Well to FilingPackage/);
    });

    it('given a refusal while recording (a lasting one), then the failure is recorded instead', () => {
      const [first] = recordFilingPackageReactor.react(reviewed, toFile);
      const instead = described([first.whenRefused!('the entity_id is taken')!]);
      expect(instead[0].writes[0].command).to.deep.include({
        type: 'RecordFilingFailure',
        reason: 'the entity_id is taken',
        attemptedBy: 'rev',
      });
    });

    it('given the entity gone from the graph, then ChecklistFilingFailed; given it filed already or nothing to file, then nothing', () => {
      const missing: FilingPackageFacts = {
        status: 'entity_missing',
        tenantId: 't1',
        checklistId: 'cl1',
        approvalId: 'ap1',
        reason: "the checklist's well 42-501-12345 is not in the graph",
      };
      const shown = described(recordFilingPackageReactor.react(reviewed, missing));
      expect(shown[0].writes[0].command).to.deep.include({ type: 'RecordFilingFailure', reason: missing.reason });
      expect(recordFilingPackageReactor.react(reviewed, { status: 'filed' })).to.deep.equal([]);
      expect(recordFilingPackageReactor.react(reviewed, { status: 'nothing_to_file' })).to.deep.equal([]);
    });
  });

  describe('compliance.reassess-after-filing', () => {
    const filed = (unit: { label: string; entityId: string }) =>
      recorded('ChecklistFiled', {
        approvalId: 'ap1',
        filingId: 'filing-cl1',
        unit,
        advanced: {},
        filedBy: 'rev',
        filedAt: NOW,
      });
    const reactor = reassessAfterFilingReactor([]);

    it("given a well's checklist filed on its lease, then the lease and the well are re-assessed", () => {
      const shown = described(
        reactor.react(filed({ label: 'Lease', entityId: 'L-1' }), { checklistEntityId: '42-501-12345' }),
      );
      expect(shown.map((c) => c.operation)).to.deep.equal([
        { name: 'compliance.assess-entity', input: { entityId: 'L-1' } },
        { name: 'compliance.assess-entity', input: { entityId: '42-501-12345' } },
      ]);
      expect(reactor.react(filed({ label: 'Lease', entityId: 'L-1' }), { checklistEntityId: null })).to.have.length(1);
    });

    it('given a checklist filed on its own entity, then that entity once; an entity gone meanwhile is no failure', () => {
      const commands = reactor.react(filed({ label: 'Well', entityId: '42-501-12345' }), {
        checklistEntityId: '42-501-12345',
      });
      expect(described(commands).map((c) => c.operation?.input)).to.deep.equal([{ entityId: '42-501-12345' }]);
      expect(commands[0].expected).to.deep.equal(['not_found']);
    });
  });

  describe('reactions as data', () => {
    it("given ApprovalDecided from a conversation, then the decision is delivered to it as the reviewer's", () => {
      const approval = {
        status: 'approved',
        approvalId: 'ap1',
        conversationId: 'cv1',
        checkpointType: 'tool_call',
        decision: { decision: 'approved', reviewerId: 'rev', comments: null, modifications: null, decidedAt: NOW },
      } as unknown as ApprovalState;
      const shown = described(routeDecisionReactor.react(recorded('ApprovalDecided', {}), approval));
      expect(shown).to.have.length(1);
      expect(shown[0]).to.deep.include({ step: 'route-decision', actorId: 'rev' });
      expect(shown[0].writes[0].stream).to.match(/^conversations\.conversation-t1-cv1$/);
      expect(shown[0].writes[0].command).to.include({ type: 'DeliverApprovalDecision', approvalId: 'ap1' });
    });

    it('given ChecklistRejected with a pending approval, then it is closed; a decision made meanwhile is the expected outcome', () => {
      const [command] = closeRejectedApprovalReactor.react(
        recorded('ChecklistRejected', { reason: 'wrong well', rejectedBy: 'rev', rejectedAt: NOW, approvalId: 'ap1' }),
        undefined,
      );
      expect(described([command])[0].writes[0]).to.deep.include({ stream: 'approvals.approval-t1-ap1' });
      expect(command.expected).to.deep.equal(['conflict', 'forbidden']);
    });

    // Never called, only compiled: `react` once took the deps, and a call still written that way
    // would compile and send nothing, since the runtime is what loads facts and sends commands.
    function _staleReactCall(event: RecordedEvent, deps: PlatformDeps) {
      // @ts-expect-error: a reactor without facts takes `undefined`, never the deps
      return closeRejectedApprovalReactor.react(event, deps);
    }

    it('given a reaction, then its commands run under its causation, correlation and a key derived from the event and step', () => {
      const context = reactionContext(recorded('ChecklistFiled', {}), 'reassess');
      expect(context).to.deep.equal({
        tenantId: 't1',
        actorId: 'op',
        correlationId: 'c',
        causationId: 'e1',
        idempotencyKey: 'reaction:e1:reassess',
      });
      expect(commandContext(graphActor(context))).to.deep.equal(context);
    });
  });

  describe('agents.schedule-turn-deadline and its handler', () => {
    const started = {
      executionId: 'x1',
      conversationId: 'c1',
      userId: 'u1',
      agentId: 'a',
      agentType: 'general',
      model: 'm',
      fallbackModel: null,
      thinkingMode: 'standard',
      maxTokens: null,
      maxCostUsd: null,
      userMessageId: 'm1',
      attachmentIds: [],
      startedAt: NOW,
    };

    it('given TurnStarted, then a message due a margin after start + AGENT_TURN_TIMEOUT_MS (when the turn aborts itself), one per turn', () => {
      expect(deadlineMessage(started, 300_000)).to.deep.equal({
        messageId: 'turn-deadline-x1',
        dueAt: '2026-11-26T08:06:00.000Z',
        handler: 'agents.turn-deadline',
        payload: { execution_id: 'x1' },
      });
      expect(Date.parse(deadlineMessage(started, 1_000).dueAt) - Date.parse(NOW)).to.equal(11_000);
      expect([1_000, 120_000, 300_000, 3_600_000].map(deadlineMarginMs)).to.deep.equal([
        10_000, 30_000, 60_000, 60_000,
      ]);
    });

    it('given the deadline fires on the instance running the turn before its own clock says the turn is past its deadline and margin, then it is left to finish itself', async () => {
      const ended = runningHere('x-local');
      try {
        const untouchable = { readStream: () => Promise.reject(new Error('a turn running here was read')) };
        const deps = { config: { llm: { turnTimeoutMs: 1_000 } }, store: untouchable } as unknown as Parameters<
          typeof turnDeadlineHandler.fire
        >[1];
        // Due by a wall clock far ahead of this instance's: the turn started a moment ago here.
        await turnDeadlineHandler.fire(
          {
            tenantId: 't1',
            messageId: 'turn-deadline-x-local',
            dueAt: NOW,
            handler: 'agents.turn-deadline',
            payload: { execution_id: 'x-local' },
          },
          deps,
        );
      } finally {
        ended();
      }
    });

    it('given a turn ended at its deadline after resume_guard consumed a decision, then that decision is given back; given none consumed, then nothing', () => {
      const guard = (status: string, detail: Record<string, unknown> | null) =>
        ({
          type: 'NodeCompleted',
          data: { node: 'resume_guard', status, tokensUsed: null, message: null, skillsLoaded: null, detail },
        }) as const;
      const detail = {
        approval_id: 'a1',
        checkpoint_type: 'filing_submission',
        decision: 'modified',
        reviewer_id: 'r1',
        comments: null,
        modifications: { oil: 3100 },
        decided_at: NOW,
      };
      expect(consumedDecision([{ type: 'TurnStarted', data: started }, guard('resumed', detail)], 'x1')).to.deep.equal({
        approvalId: 'a1',
        checkpointType: 'filing_submission',
        executionId: 'x1',
        decision: {
          decision: 'modified',
          reviewerId: 'r1',
          comments: null,
          modifications: { oil: 3100 },
          decidedAt: NOW,
        },
      });
      expect(
        consumedDecision([{ type: 'TurnStarted', data: started }, guard('pending', { approval_id: 'a1' })], 'x1'),
      ).to.equal(null);
      expect(consumedDecision([{ type: 'TurnStarted', data: started }], 'x1')).to.equal(null);
    });

    it('given a batch where one turn started and ended and another only started, then only the second may need a deadline', () => {
      const at = (stream: string, type: string, data: Record<string, unknown> = {}, revision = 0): RecordedEvent =>
        ({
          id: `${stream}-${revision}`,
          stream,
          revision: BigInt(revision),
          position: { commit: 1n, prepare: BigInt(revision) },
          type,
          data,
          metadata: {},
          recordedAt: new Date(NOW),
        }) as RecordedEvent;
      const ended = at('agents.turn-t1', 'TurnStarted', { ...started, executionId: 't1' });
      const running = at('agents.turn-t2', 'TurnStarted', { ...started, executionId: 't2' });
      const paused = at('agents.turn-t3', 'TurnStarted', { ...started, executionId: 't3' });
      const batch = [
        ended,
        running,
        paused,
        at('agents.turn-t1', 'TurnCompleted', {}, 5),
        at('agents.turn-t3', 'TurnPaused', {}, 4),
      ];
      expect(startedWithoutEnd(batch)).to.deep.equal([running]);
    });

    it('given the turn still running at its deadline, then FinishTurn as error with unknown usage; given it ended, then nothing', () => {
      const fields = {
        executionId: 'x1',
        conversationId: 'c1',
        userId: 'u1',
        budgetDay: null,
        nodesCompleted: 2,
        lastNode: null,
      };
      const finish = deadlineFinish({ status: 'running', ...fields }, started, 300_000);
      expect(finish?.outcome).to.include({ status: 'error', tokensUsed: null, costUsd: null });
      expect(finish?.outcome.error).to.match(/deadline/);
      expect(finish?.usage).to.deep.equal({
        userId: 'u1',
        model: 'm',
        inputTokens: null,
        outputTokens: null,
        tokensUsed: null,
        costUsd: null,
      });
      expect(deadlineFinish({ status: 'completed', ...fields }, started, 300_000)).to.equal(null);
    });
  });

  describe('compliance.daily-assessment', () => {
    it('the next run is the first COMPLIANCE_ASSESS_AT strictly after now, one message id per instant', () => {
      expect(nextAssessmentAt(new Date('2026-11-26T01:59:00Z'), '02:00').toISOString()).to.equal(
        '2026-11-26T02:00:00.000Z',
      );
      expect(nextAssessmentAt(new Date('2026-11-26T02:00:00Z'), '02:00').toISOString()).to.equal(
        '2026-11-27T02:00:00.000Z',
      );
      expect(dailyAssessmentMessage(new Date('2026-11-27T02:00:00Z')).messageId).to.equal(
        'daily-assessment-2026-11-27T02:00',
      );
    });
  });

  describe('scheduled messages', () => {
    const schedule = { type: 'Schedule' as const, messageId: 'm1', dueAt: NOW, handler: 'h', payload: {} };
    const scheduled = {
      type: 'MessageScheduled' as const,
      data: { messageId: 'm1', dueAt: NOW, handler: 'h', payload: {} },
    };
    const fired = { type: 'ScheduledMessageFired' as const, data: { messageId: 'm1', firedAt: NOW } };

    it('scheduling the same message twice appends nothing the second time', () => {
      given(scheduleDecider, []).when(schedule).then([scheduled]);
      given(scheduleDecider, [scheduled]).when(schedule).thenNothing();
    });

    it('firing twice records the firing once', () => {
      given(scheduleDecider, [scheduled], new Date(NOW)).when({ type: 'Fire' }).then([fired]);
      given(scheduleDecider, [scheduled, fired]).when({ type: 'Fire' }).thenNothing();
    });

    const parked = {
      type: 'ScheduledMessageDeadLettered' as const,
      data: { messageId: 'm1', attempts: 8, error: 'boom', deadLetteredAt: NOW },
    };
    const retried = { type: 'ScheduledMessageRetried' as const, data: { messageId: 'm1', retriedAt: NOW } };

    it('a message whose handler kept failing is parked once; a parked message does not fire', () => {
      given(scheduleDecider, [scheduled], new Date(NOW))
        .when({ type: 'DeadLetter', attempts: 8, error: 'boom' })
        .then([parked]);
      given(scheduleDecider, [scheduled, parked])
        .when({ type: 'DeadLetter', attempts: 9, error: 'boom' })
        .thenNothing();
      given(scheduleDecider, [scheduled, fired]).when({ type: 'DeadLetter', attempts: 8, error: 'boom' }).thenNothing();
      given(scheduleDecider, [scheduled, parked]).when({ type: 'Fire' }).thenNothing();
    });

    it('retry makes a parked message due again (once), and it can then fire; retrying a message that is not parked appends nothing', () => {
      given(scheduleDecider, [scheduled, parked], new Date(NOW)).when({ type: 'Retry' }).then([retried]);
      given(scheduleDecider, [scheduled, parked, retried]).when({ type: 'Retry' }).thenNothing();
      given(scheduleDecider, [scheduled, parked, retried], new Date(NOW)).when({ type: 'Fire' }).then([fired]);
      given(scheduleDecider, [scheduled]).when({ type: 'Retry' }).thenNothing();
    });

    it('a failed firing counts its attempt in the stream, from where the last one left it; after a retry the count starts again', () => {
      const retryAt = '2026-11-26T12:00:01.000Z';
      const failed = (attempts: number) => ({
        type: 'ScheduledMessageFailed' as const,
        data: { messageId: 'm1', attempts, error: 'down', failedAt: NOW, retryAt },
      });
      given(scheduleDecider, [scheduled], new Date(NOW))
        .when({ type: 'Fail', error: 'down', retryAt })
        .then([failed(1)]);
      given(scheduleDecider, [scheduled, failed(1)], new Date(NOW))
        .when({ type: 'Fail', error: 'down', retryAt })
        .then([failed(2)]);
      given(scheduleDecider, [scheduled, failed(1), parked, retried], new Date(NOW))
        .when({ type: 'Fail', error: 'down', retryAt })
        .then([failed(1)]);
      given(scheduleDecider, [scheduled, fired]).when({ type: 'Fail', error: 'down', retryAt }).thenNothing();
    });
  });
});
