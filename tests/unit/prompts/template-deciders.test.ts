import { expect } from 'chai';
import { given } from '../../support/given';
import { Conflict, Forbidden, NotFound, ValidationFailed } from '../../../src/platform/domain-errors';
import { templateAggregate, type TemplateEvent, type Validation } from '../../../streams/prompts/template';
import { decideCreateDraft } from '../../../commands/prompts/create-draft';
import { decideSaveDraft } from '../../../commands/prompts/save-draft';
import { decideDiscardDraft } from '../../../commands/prompts/discard-draft';
import { decidePromotePreProduction, PreProductionTaken } from '../../../commands/prompts/promote-pre-production';
import { decideApproveVersion } from '../../../commands/prompts/approve-version';
import { decideRejectVersion } from '../../../commands/prompts/reject-version';
import { decidePromoteActive } from '../../../commands/prompts/promote-active';
import { decideDeleteTemplate } from '../../../commands/prompts/delete-template';

const NOW = new Date('2026-01-15T12:00:00Z');
const AT = NOW.toISOString();
const T = 'tpl-1';

const ok: Validation = {
  valid: true,
  syntaxOk: true,
  subsetOk: true,
  injectionScan: { status: 'clean', findings: [] },
  tokenEstimate: 5,
  variablesExtracted: [],
  unknownVariables: [],
  errors: [],
  warnings: [],
};
const bad: Validation = { ...ok, valid: false, subsetOk: false, errors: ['include'] };

const created: TemplateEvent = {
  type: 'PromptTemplateCreated',
  data: {
    templateId: T,
    namespaceId: 'ns-1',
    namespaceName: 'agents',
    slug: 'chat',
    name: 'chat',
    description: '',
    budgetTierId: null,
    variables: null,
    createdBy: 'ann',
    createdAt: AT,
  },
};
const draft = (versionId: string, authorId: string, versionNumber: number, validation = ok): TemplateEvent => ({
  type: 'PromptDraftCreated',
  data: {
    templateId: T,
    versionId,
    versionNumber,
    authorId,
    body: `body ${versionId}`,
    changeNote: '',
    tokenEstimate: 5,
    validation,
    createdAt: AT,
  },
});
const preProd = (versionId: string, targetUsers: string[] = [], targetRoles: string[] = []): TemplateEvent => ({
  type: 'PromptPromotedToPreProduction',
  data: {
    templateId: T,
    versionId,
    targetUsers,
    targetRoles,
    resolution: 'none',
    displacedVersionId: null,
    promotedBy: 'ann',
    promotedAt: AT,
  },
});
const promoted = (
  versionId: string,
  retiredVersionId: string | null,
  fromStatus: 'pre_production' | 'draft' | 'retired' = 'pre_production',
): TemplateEvent => ({
  type: 'PromptPromoted',
  data: { templateId: T, versionId, fromStatus, retiredVersionId, promotedBy: 'bo', promotedAt: AT },
});

const decider = <C>(decide: (c: C, s: any, n: Date) => TemplateEvent[]) => ({ ...templateAggregate, decide });

describe('prompt template deciders', () => {
  describe('create draft', () => {
    const create = decider(decideCreateDraft);
    it('numbers the first draft 1', () => {
      given(create, [created], NOW)
        .when({
          type: 'CreateDraft',
          versionId: 'v1',
          authorId: 'ann',
          body: 'Hi',
          changeNote: 'first',
          validation: ok,
        })
        .then([
          {
            type: 'PromptDraftCreated',
            data: {
              templateId: T,
              versionId: 'v1',
              versionNumber: 1,
              authorId: 'ann',
              body: 'Hi',
              changeNote: 'first',
              tokenEstimate: 5,
              validation: ok,
              createdAt: AT,
            },
          },
        ]);
    });
    it('refuses a second draft by the same author with 409', () => {
      given(create, [created, draft('v1', 'ann', 1)], NOW)
        .when({ type: 'CreateDraft', versionId: 'v2', authorId: 'ann', body: 'x', changeNote: '', validation: ok })
        .thenThrows(Conflict, /already have a draft/);
    });
    it('lets another author draft alongside, numbered next', () => {
      const events = given(create, [created, draft('v1', 'ann', 1)], NOW)
        .when({ type: 'CreateDraft', versionId: 'v2', authorId: 'bo', body: 'x', changeNote: '', validation: ok })
        .events();
      expect(events[0].data).to.include({ versionNumber: 2, authorId: 'bo' });
    });
    it('lets the author draft again once the draft left the draft stage', () => {
      given(create, [created, draft('v1', 'ann', 1), preProd('v1')], NOW)
        .when({ type: 'CreateDraft', versionId: 'v2', authorId: 'ann', body: 'x', changeNote: '', validation: ok })
        .events();
    });
    it('answers 404 for a deleted template', () => {
      const deleted: TemplateEvent = {
        type: 'PromptTemplateDeleted',
        data: { templateId: T, namespaceId: 'ns-1', slug: 'chat', deletedBy: 'ann', deletedAt: AT },
      };
      given(create, [created, deleted], NOW)
        .when({ type: 'CreateDraft', versionId: 'v2', authorId: 'ann', body: 'x', changeNote: '', validation: ok })
        .thenThrows(NotFound);
    });
  });

  describe('save and discard', () => {
    it('only the author saves their draft', () => {
      given(decider(decideSaveDraft), [created, draft('v1', 'ann', 1)], NOW)
        .when({ type: 'SaveDraft', versionId: 'v1', actorId: 'bo', body: 'x', changeNote: null, validation: ok })
        .thenThrows(Forbidden);
    });
    it('a version past the draft stage cannot be saved', () => {
      given(decider(decideSaveDraft), [created, draft('v1', 'ann', 1), preProd('v1')], NOW)
        .when({ type: 'SaveDraft', versionId: 'v1', actorId: 'ann', body: 'x', changeNote: null, validation: ok })
        .thenThrows(Conflict, /pre_production/);
    });
    it('discarding frees the author to draft again', () => {
      const history = [created, draft('v1', 'ann', 1)];
      const [discarded] = given(decider(decideDiscardDraft), history, NOW)
        .when({ type: 'DiscardDraft', versionId: 'v1', actorId: 'ann' })
        .events();
      expect(discarded.type).to.equal('PromptDraftDiscarded');
      given(decider(decideCreateDraft), [...history, discarded], NOW)
        .when({ type: 'CreateDraft', versionId: 'v2', authorId: 'ann', body: 'x', changeNote: '', validation: ok })
        .events();
    });
  });

  describe('promote to pre-production', () => {
    const promote = decider(decidePromotePreProduction);
    const cmd = (
      versionId: string,
      actorId: string,
      mode: 'plain' | 'override' | 'merge' = 'plain',
      targetUsers: string[] = ['u1'],
      targetRoles: string[] = [],
    ) => ({ type: 'PromotePreProduction' as const, versionId, actorId, targetUsers, targetRoles, mode });

    it('moves a valid draft into pre-production with its audience', () => {
      given(promote, [created, draft('v1', 'ann', 1)], NOW)
        .when(cmd('v1', 'ann', 'plain', ['u1'], ['reviewer']))
        .then([
          {
            type: 'PromptPromotedToPreProduction',
            data: {
              templateId: T,
              versionId: 'v1',
              targetUsers: ['u1'],
              targetRoles: ['reviewer'],
              resolution: 'none',
              displacedVersionId: null,
              promotedBy: 'ann',
              promotedAt: AT,
            },
          },
        ]);
    });
    it('refuses a version that failed validation', () => {
      given(promote, [created, draft('v1', 'ann', 1, bad)], NOW)
        .when(cmd('v1', 'ann'))
        .thenThrows(ValidationFailed);
    });
    it('refuses a second pre-production version, naming the one in place', () => {
      const { state } = given(promote, [created, draft('v1', 'ann', 1), preProd('v1'), draft('v2', 'bo', 2)], NOW);
      let thrown: unknown;
      try {
        decidePromotePreProduction(cmd('v2', 'bo'), state, NOW);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).to.be.instanceOf(PreProductionTaken);
      expect((thrown as PreProductionTaken).existingVersionId).to.equal('v1');
    });
    it('override retires the version in place and keeps only the new audience', () => {
      const [event] = given(
        promote,
        [created, draft('v1', 'ann', 1), preProd('v1', ['u1'], ['reviewer']), draft('v2', 'bo', 2)],
        NOW,
      )
        .when(cmd('v2', 'bo', 'override', ['u2']))
        .events();
      expect(event.data).to.include({ resolution: 'override', displacedVersionId: 'v1' });
      expect(event.data).to.deep.include({ targetUsers: ['u2'], targetRoles: [] });
    });
    it('merge retires the version in place and unites both audiences', () => {
      const history = [created, draft('v1', 'ann', 1), preProd('v1', ['u1'], ['reviewer']), draft('v2', 'bo', 2)];
      const [event] = given(promote, history, NOW)
        .when(cmd('v2', 'bo', 'merge', ['u2', 'u1'], ['operator']))
        .events();
      expect(event.data).to.deep.include({
        resolution: 'merge',
        displacedVersionId: 'v1',
        targetUsers: ['u1', 'u2'],
        targetRoles: ['reviewer', 'operator'],
      });
      const after = [...history, event].reduce(templateAggregate.evolve, templateAggregate.initialState);
      expect(after.status === 'live' && after.versions.v1.status).to.equal('retired');
      expect(after.status === 'live' && after.preProduction?.versionId).to.equal('v2');
    });
    it('promoting the pre-production version again re-targets it', () => {
      const [event] = given(promote, [created, draft('v1', 'ann', 1), preProd('v1', ['u1'])], NOW)
        .when(cmd('v1', 'ann', 'plain', ['u9']))
        .events();
      expect(event.data).to.deep.include({ targetUsers: ['u9'], displacedVersionId: null });
    });
    it('only the author promotes their draft', () => {
      given(promote, [created, draft('v1', 'ann', 1)], NOW)
        .when(cmd('v1', 'bo'))
        .thenThrows(Forbidden);
    });
  });

  describe('approve, reject, promote to active', () => {
    const history = [created, draft('v1', 'ann', 1), preProd('v1')];
    it('the author cannot approve their own version (409)', () => {
      given(decider(decideApproveVersion), history, NOW)
        .when({ type: 'ApproveVersion', versionId: 'v1', actorId: 'ann' })
        .thenThrows(Conflict, /author cannot approve/);
    });
    it('another approver makes it active, retiring the active version in the same event', () => {
      const live = [...history, promoted('v1', null), draft('v2', 'ann', 2), preProd('v2')];
      given(decider(decideApproveVersion), live, NOW)
        .when({ type: 'ApproveVersion', versionId: 'v2', actorId: 'bo' })
        .then([
          { type: 'PromptApproved', data: { templateId: T, versionId: 'v2', approvedBy: 'bo', approvedAt: AT } },
          {
            type: 'PromptPromoted',
            data: {
              templateId: T,
              versionId: 'v2',
              fromStatus: 'pre_production',
              retiredVersionId: 'v1',
              promotedBy: 'bo',
              promotedAt: AT,
            },
          },
        ]);
    });
    it('only a pre-production version can be approved', () => {
      given(decider(decideApproveVersion), [created, draft('v1', 'ann', 1)], NOW)
        .when({ type: 'ApproveVersion', versionId: 'v1', actorId: 'bo' })
        .thenThrows(Conflict, /draft/);
    });
    it('rejecting frees the pre-production slot', () => {
      const [event] = given(decider(decideRejectVersion), history, NOW)
        .when({ type: 'RejectVersion', versionId: 'v1', actorId: 'bo', reason: 'tone' })
        .events();
      const after = [...history, event].reduce(templateAggregate.evolve, templateAggregate.initialState);
      expect(after.status === 'live' && after.preProduction).to.equal(null);
      expect(after.status === 'live' && after.versions.v1.status).to.equal('rejected');
    });
    it('a retired version can be promoted back (rollback) by someone other than its author', () => {
      const live = [...history, promoted('v1', null), draft('v2', 'ann', 2), preProd('v2'), promoted('v2', 'v1')];
      given(decider(decidePromoteActive), live, NOW)
        .when({ type: 'PromoteActive', versionId: 'v1', actorId: 'bo' })
        .then([
          {
            type: 'PromptPromoted',
            data: {
              templateId: T,
              versionId: 'v1',
              fromStatus: 'retired',
              retiredVersionId: 'v2',
              promotedBy: 'bo',
              promotedAt: AT,
            },
          },
        ]);
      given(decider(decidePromoteActive), live, NOW)
        .when({ type: 'PromoteActive', versionId: 'v1', actorId: 'ann' })
        .thenThrows(Conflict, /author cannot promote/);
    });
    it('a rejected or already active version is not promoted', () => {
      const rejected: TemplateEvent = {
        type: 'PromptRejected',
        data: { templateId: T, versionId: 'v1', reason: '', rejectedBy: 'bo', rejectedAt: AT },
      };
      given(decider(decidePromoteActive), [...history, rejected], NOW)
        .when({ type: 'PromoteActive', versionId: 'v1', actorId: 'bo' })
        .thenThrows(Conflict, /rejected/);
      given(decider(decidePromoteActive), [...history, promoted('v1', null)], NOW)
        .when({ type: 'PromoteActive', versionId: 'v1', actorId: 'bo' })
        .thenThrows(Conflict, /already active/);
    });
    it('deleting a template twice answers 404', () => {
      const [deleted] = given(decider(decideDeleteTemplate), history, NOW)
        .when({ type: 'DeleteTemplate', actorId: 'ann' })
        .events();
      given(decider(decideDeleteTemplate), [...history, deleted], NOW)
        .when({ type: 'DeleteTemplate', actorId: 'ann' })
        .thenThrows(NotFound);
    });
  });

  it('snapshots round-trip the decision state', () => {
    const state = [created, draft('v1', 'ann', 1), preProd('v1', ['u1'])].reduce(
      templateAggregate.evolve,
      templateAggregate.initialState,
    );
    const policy = templateAggregate.snapshot!;
    expect(policy.fromJSON(JSON.parse(JSON.stringify(policy.toJSON(state))))).to.deep.equal(state);
  });
});
