import { expect } from 'chai';
import { addArtifactDecider, type AddArtifact } from '../../../commands/checklists/add-artifact';
import { assessmentDecider } from '../../../commands/checklists/assessment-commands';
import { createChecklistDecider } from '../../../commands/checklists/create-checklist';
import { recordReviewDecider } from '../../../commands/checklists/record-review';
import { rejectChecklistDecider } from '../../../commands/checklists/reject-checklist';
import { removeArtifactDecider } from '../../../commands/checklists/remove-artifact';
import { requestExceptionDecider } from '../../../commands/checklists/request-exception';
import { submitChecklistDecider } from '../../../commands/checklists/submit-checklist';
import { updateChecklistItemDecider } from '../../../commands/checklists/update-checklist-item';
import { findTemplate } from '../../../streams/checklists/filing-templates';
import { Conflict, NotFound } from '../../../src/platform/domain-errors';
import type { AssessmentEvent } from '../../../streams/checklists/assessment';
import { checklistAggregate, type ChecklistEvent, MAX_ARTIFACTS_PER_ITEM } from '../../../streams/checklists/checklist';
import { given } from '../../support/given';

const NOW = '2026-01-15T12:00:00.000Z';
const template = findTemplate('form_pr')!;

const created: ChecklistEvent = {
  type: 'ChecklistCreated',
  data: {
    checklistId: 'ck1',
    templateId: 'form_pr',
    form: 'PR',
    title: template.title,
    entityId: '42-501-12345',
    entityType: 'well',
    domain: 'production',
    period: '2025-12',
    dueDate: '2026-01-30',
    items: template.items.map((i, index) => ({ index, key: i.key, label: i.label, itemType: i.itemType })),
    createdBy: 'op',
    createdAt: NOW,
  },
};
const itemDone = (index: number): ChecklistEvent => ({
  type: 'ChecklistItemUpdated',
  data: { index, status: 'complete', updatedBy: 'op', updatedAt: NOW },
});
const allDone = template.items.map((_, i) => itemDone(i));
const submitted: ChecklistEvent = {
  type: 'ChecklistSubmitted',
  data: { approvalId: 'ap1', submittedBy: 'op', submittedAt: NOW, reviewerId: null, summary: null },
};
const review = (decision: 'approved' | 'rejected' | 'modified', approvalId = 'ap1') => ({
  type: 'RecordReview' as const,
  approvalId,
  decision: { decision, reviewerId: 'rev', comments: null, modifications: null, decidedAt: NOW },
});
const state = (events: ChecklistEvent[]) => events.reduce(checklistAggregate.evolve, checklistAggregate.initialState);

describe('checklist deciders', () => {
  it('creating from a template lists every item of the form', () => {
    const events = given(createChecklistDecider)
      .when({
        type: 'CreateChecklist',
        checklistId: 'ck1',
        template,
        entityId: '42-501-12345',
        entityType: 'well',
        title: null,
        period: '2025-12',
        dueDate: '2026-01-30',
        createdBy: 'op',
      })
      .events();
    expect(events).to.deep.equal([created]);
  });

  it('an item index out of range is not found', () => {
    given(updateChecklistItemDecider, [created])
      .when({ type: 'UpdateChecklistItem', index: 6, status: 'complete', updatedBy: 'op' })
      .thenThrows(NotFound);
  });

  it('submit with incomplete items is a conflict that names them', () => {
    const run = () =>
      submitChecklistDecider.decide(
        { type: 'SubmitChecklist', approvalId: 'ap1', submittedBy: 'op', reviewerId: null, summary: null },
        state([created, itemDone(0), itemDone(1)]),
        new Date(NOW),
      );
    expect(run).to.throw(Conflict, /#2 .*#3 .*#4 .*#5/);
    try {
      run();
    } catch (error) {
      expect((error as Conflict).body?.incomplete_items).to.have.length(4);
    }
  });

  it('submit with every item complete moves to in_review waiting on the approval', () => {
    given(submitChecklistDecider, [created, ...allDone])
      .when({ type: 'SubmitChecklist', approvalId: 'ap1', submittedBy: 'op', reviewerId: null, summary: null })
      .then([submitted]);
    expect(state([created, ...allDone, submitted])).to.include({ status: 'in_review', pendingApprovalId: 'ap1' });
  });

  it('items are frozen while in review', () => {
    given(updateChecklistItemDecider, [created, ...allDone, submitted])
      .when({ type: 'UpdateChecklistItem', index: 0, notes: 'x', updatedBy: 'op' })
      .thenThrows(Conflict, /in_review/);
  });

  it("the awaited approval's decision moves the checklist: approved → approved, rejected → in_progress", () => {
    const approved = given(recordReviewDecider, [created, ...allDone, submitted])
      .when(review('approved'))
      .events();
    expect(state([created, ...allDone, submitted, ...approved]).status).to.equal('approved');
    const rejected = given(recordReviewDecider, [created, ...allDone, submitted])
      .when(review('rejected'))
      .events();
    expect(state([created, ...allDone, submitted, ...rejected])).to.include({
      status: 'in_progress',
      pendingApprovalId: null,
    });
  });

  it('a decision on another approval changes nothing', () => {
    given(recordReviewDecider, [created, ...allDone, submitted])
      .when(review('approved', 'other'))
      .thenNothing();
  });

  it('an exception names existing items and, granted, ends in exception_granted', () => {
    given(requestExceptionDecider, [created])
      .when({
        type: 'RequestException',
        approvalId: 'ap2',
        reason: 'shut in',
        itemIndexes: [8],
        requestedUntil: null,
        requestedBy: 'op',
        reviewerId: null,
      })
      .thenThrows(NotFound);
    const asked = given(requestExceptionDecider, [created])
      .when({
        type: 'RequestException',
        approvalId: 'ap2',
        reason: 'shut in',
        itemIndexes: [1, 1, 2],
        requestedUntil: null,
        requestedBy: 'op',
        reviewerId: null,
      })
      .events();
    expect(asked[0].data).to.include({ approvalId: 'ap2' });
    const granted = recordReviewDecider.decide(review('modified', 'ap2'), state([created, ...asked]), new Date(NOW));
    expect(state([created, ...asked, ...granted]).status).to.equal('exception_granted');
  });

  it('reject is final and names the approval it leaves behind', () => {
    const events = given(rejectChecklistDecider, [created, ...allDone, submitted])
      .when({ type: 'RejectChecklist', reason: 'wrong well', rejectedBy: 'rev' })
      .events();
    expect(events[0].data).to.include({ approvalId: 'ap1', reason: 'wrong well' });
    given(rejectChecklistDecider, [created, ...events])
      .when({ type: 'RejectChecklist', reason: 'again', rejectedBy: 'rev' })
      .thenThrows(Conflict);
  });

  it('four eyes: the submitter cannot reject their own submission; the attempt is recorded and changes nothing', () => {
    const events = given(rejectChecklistDecider, [created, ...allDone, submitted])
      .when({ type: 'RejectChecklist', reason: 'mine', rejectedBy: 'op' })
      .events();
    expect(events).to.deep.equal([
      {
        type: 'ChecklistRejectionRefused',
        data: {
          attemptedBy: 'op',
          reason: 'You submitted this checklist for review, so another reviewer must reject it (four eyes)',
          refusedAt: NOW,
          approvalId: 'ap1',
        },
      },
    ]);
    expect(state([created, ...allDone, submitted, ...events])).to.include({
      status: 'in_review',
      pendingApprovalId: 'ap1',
      submittedBy: 'op',
    });
    given(rejectChecklistDecider, [created, ...allDone, submitted])
      .when({ type: 'RejectChecklist', reason: 'mine', rejectedBy: 'op', mayDecideOwn: true })
      .events()
      .forEach((e) => expect(e.type).to.equal('ChecklistRejected'));
  });

  it('four eyes applies to a submission under review only: an author may abandon a checklist in progress', () => {
    const events = given(rejectChecklistDecider, [created])
      .when({ type: 'RejectChecklist', reason: 'duplicate', rejectedBy: 'op' })
      .events();
    expect(events[0].type).to.equal('ChecklistRejected');
  });

  it('artifacts: an item holds a bounded number; removing names the right item', () => {
    const add = (artifactId: string): AddArtifact => ({
      type: 'AddArtifact',
      artifactId,
      itemIndex: 1,
      artifactType: 'doc',
      filename: 'a.csv',
      contentType: 'text/csv',
      sizeBytes: 3,
      sha256: 'abc',
      source: 'upload',
      addedBy: 'op',
    });
    const history: ChecklistEvent[] = [created];
    for (let i = 0; i < MAX_ARTIFACTS_PER_ITEM; i++)
      history.push(...addArtifactDecider.decide(add(`a${i}`), state(history), new Date(NOW)));
    given(addArtifactDecider, history).when(add('one-more')).thenThrows(Conflict);
    given(addArtifactDecider, history).when(add('a0')).thenNothing();
    given(removeArtifactDecider, history)
      .when({ type: 'RemoveArtifact', artifactId: 'a0', itemIndex: 2, removedBy: 'op' })
      .thenThrows(NotFound);
    expect(
      given(removeArtifactDecider, history)
        .when({ type: 'RemoveArtifact', artifactId: 'a0', itemIndex: 1, removedBy: 'op' })
        .events()[0].type,
    ).to.equal('ArtifactRemoved');
  });
});

describe('assessment decider', () => {
  const start = (assessmentId: string, rerun = false) => ({
    type: 'StartAssessment' as const,
    assessmentId,
    checklistId: 'ck1',
    templateId: 'form_pr',
    entityId: 'w',
    startedBy: 'op',
    rerun,
  });
  const started = (assessmentId: string, startedAt = NOW): AssessmentEvent => ({
    type: 'AssessmentStarted',
    data: { assessmentId, checklistId: 'ck1', templateId: 'form_pr', entityId: 'w', startedBy: 'op', startedAt },
  });
  const completed = (assessmentId: string): AssessmentEvent => ({
    type: 'AssessmentCompleted',
    data: {
      assessmentId,
      status: 'completed',
      itemsAssessed: 1,
      validationsPassed: 1,
      validationsFailed: 0,
      error: null,
      completedAt: NOW,
    },
  });
  const frame = (assessmentId: string): AssessmentEvent => ({
    type: 'AssessmentAgentStatusChanged',
    data: { assessmentId, state: 'assessing', message: 'x', itemIndex: 0 },
  });

  it('one run at a time: a second start while running starts nothing', () => {
    given(assessmentDecider)
      .when(start('r1'))
      .then([started('r1')]);
    given(assessmentDecider, [started('r1')])
      .when(start('r2', true))
      .thenNothing();
  });

  it('a run abandoned for over ten minutes can be replaced', () => {
    given(assessmentDecider, [started('r1', '2026-01-15T11:40:00.000Z')])
      .when(start('r2'))
      .then([started('r2')]);
  });

  it('a completed run is replayed unless a rerun is asked', () => {
    given(assessmentDecider, [started('r1'), completed('r1')])
      .when(start('r2'))
      .thenNothing();
    given(assessmentDecider, [started('r1'), completed('r1')])
      .when(start('r2', true))
      .then([started('r2')]);
  });

  it('frames are accepted only for the current run', () => {
    given(assessmentDecider, [started('r1')])
      .when({ type: 'RecordAssessmentFrames', assessmentId: 'r1', frames: [frame('r1') as any] })
      .then([frame('r1')]);
    given(assessmentDecider, [started('r1'), completed('r1'), started('r2')])
      .when({ type: 'RecordAssessmentFrames', assessmentId: 'r1', frames: [frame('r1') as any] })
      .thenThrows(Conflict);
  });
});
