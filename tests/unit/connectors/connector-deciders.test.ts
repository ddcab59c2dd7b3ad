import { expect } from 'chai';
import { decideDeleteConnector } from '../../../commands/connectors/delete-connector';
import { decideEnableConnector } from '../../../commands/connectors/enable-connector';
import { decideRecordProbe } from '../../../commands/connectors/probe-connector';
import { decideRegisterConnector } from '../../../commands/connectors/register-connector';
import { decideReviewExposure } from '../../../commands/connectors/review-exposure';
import { decideSetCredential } from '../../../commands/connectors/set-credential';
import type { Decider } from '../../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../../src/platform/domain-errors';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../../streams/connectors/connector';
import { given } from '../../support/given';

const with_ = <C>(
  decide: (c: C, s: ConnectorState, now: Date) => ConnectorEvent[],
): Decider<C, ConnectorState, ConnectorEvent> => ({ ...connectorAggregate, decide });
const at = '2026-01-15T12:00:00.000Z';

const registered: ConnectorEvent = {
  type: 'ConnectorRegistered',
  data: {
    connectorId: 'c1',
    connectorKey: 'wells',
    displayName: 'Wells',
    description: '',
    connectorType: 'postgresql',
    config: { host: 'db.example.com' },
    dataClassification: '',
    at,
  },
};
const credential: ConnectorEvent = {
  type: 'CredentialSet',
  data: { secretName: 'connectors/t/wells/c1', credentialRevision: 1, at },
};
const probeOk = (rev = 1): ConnectorEvent => ({
  type: 'ProbeSucceeded',
  data: { credentialRevision: rev, result: { ok: true, at, reasons: [] } },
});
const drafted = (ekey: string, authorId = 'author'): ConnectorEvent => ({
  type: 'ExposureDrafted',
  data: {
    ekey,
    displayName: ekey,
    description: '',
    sql: 'select 1',
    sqlHash: 'h1',
    parameters: [],
    maxRows: null,
    authorId,
    at,
  },
});
const submitted = (ekey: string): ConnectorEvent => ({ type: 'ExposureSubmitted', data: { ekey, by: 'author', at } });
const approved = (ekey: string): ConnectorEvent => ({
  type: 'ExposureApproved',
  data: { ekey, approvedSqlHash: 'h1', by: 'approver', at },
});

describe('connector deciders', () => {
  it('registering twice on one stream is a conflict', () => {
    const command = {
      type: 'RegisterConnector' as const,
      connectorId: 'c1',
      connectorKey: 'wells',
      displayName: 'Wells',
      description: '',
      connectorType: 'postgresql' as const,
      config: {},
      dataClassification: '',
    };
    given(with_(decideRegisterConnector), [registered]).when(command).thenThrows(Conflict);
  });

  it('a credential set moves to probing, bumps the revision and clears the verification', () => {
    const state = given(with_(decideSetCredential), [registered, credential, probeOk()]);
    expect(state.state).to.include({ status: 'active', readOnlyVerifiedAt: at });
    state.when({ type: 'SetCredential', secretName: 'connectors/t/wells/c1/k2' }).then([
      {
        type: 'CredentialSet',
        data: {
          secretName: 'connectors/t/wells/c1/k2',
          credentialRevision: 2,
          at,
          supersedes: 'connectors/t/wells/c1',
        },
      },
    ]);
    state.when({ type: 'SetCredential', secretName: 'connectors/t/wells/c1' }).thenNothing();
    const after = [
      registered,
      credential,
      probeOk(),
      { type: 'CredentialSet', data: { secretName: 's', credentialRevision: 2, at } } as ConnectorEvent,
    ].reduce(connectorAggregate.evolve, connectorAggregate.initialState);
    expect(after).to.include({ status: 'probing', readOnlyVerifiedAt: null });
  });

  it('a probe result for a replaced credential is dropped', () => {
    const second: ConnectorEvent = { type: 'CredentialSet', data: { secretName: 's', credentialRevision: 2, at } };
    given(with_(decideRecordProbe), [registered, credential, second])
      .when({ type: 'RecordProbe', credentialRevision: 1, result: { ok: true, at, reasons: [] } })
      .thenNothing();
  });

  it('a probe result while disabled is dropped; enable only from disabled', () => {
    const disabled: ConnectorEvent = { type: 'ConnectorDisabled', data: { at } };
    given(with_(decideRecordProbe), [registered, credential, disabled])
      .when({ type: 'RecordProbe', credentialRevision: 1, result: { ok: true, at, reasons: [] } })
      .thenNothing();
    given(with_(decideEnableConnector), [registered, credential, probeOk()])
      .when({ type: 'EnableConnector' })
      .thenThrows(Conflict, /not disabled/);
    given(with_(decideEnableConnector), [registered, credential, disabled])
      .when({ type: 'EnableConnector' })
      .then([{ type: 'ConnectorEnabled', data: { at } }]);
  });

  it('a connector with an approved exposure cannot be deleted', () => {
    given(with_(decideDeleteConnector), [registered, drafted('q'), submitted('q'), approved('q')])
      .when({ type: 'DeleteConnector' })
      .thenThrows(Conflict, /approved exposures \(q\)/);
    given(with_(decideDeleteConnector), [registered, drafted('q')])
      .when({ type: 'DeleteConnector' })
      .then([{ type: 'ConnectorDeleted', data: { connectorKey: 'wells', at } }]);
  });

  describe('exposure review', () => {
    const review = with_(decideReviewExposure);

    it('approval pins the hash of the content under review', () => {
      given(review, [registered, drafted('q'), submitted('q')])
        .when({ type: 'ApproveExposure', ekey: 'q', by: 'approver' })
        .then([approved('q')]);
    });

    it('nobody who wrote the content may approve it', () => {
      const edited: ConnectorEvent = {
        type: 'ExposureEdited',
        data: {
          ekey: 'q',
          displayName: 'q',
          description: '',
          sql: 'select 2',
          sqlHash: 'h2',
          parameters: [],
          maxRows: null,
          editorId: 'editor',
          at,
        },
      };
      const history = [
        registered,
        drafted('q'),
        edited,
        { type: 'ExposureSubmitted', data: { ekey: 'q', by: 'editor', at } } as ConnectorEvent,
      ];
      given(review, history)
        .when({ type: 'ApproveExposure', ekey: 'q', by: 'author' })
        .thenThrows(Conflict, /approver must differ/);
      given(review, history)
        .when({ type: 'ApproveExposure', ekey: 'q', by: 'editor' })
        .thenThrows(Conflict, /approver must differ/);
      const events = given(review, history).when({ type: 'ApproveExposure', ekey: 'q', by: 'third' }).events();
      expect(events[0].data).to.include({ approvedSqlHash: 'h2' });
    });

    it('only a pending exposure is approved or rejected; only approved or pending is retired', () => {
      given(review, [registered, drafted('q')])
        .when({ type: 'ApproveExposure', ekey: 'q', by: 'x' })
        .thenThrows(Conflict, /status draft/);
      given(review, [registered, drafted('q')])
        .when({ type: 'RejectExposure', ekey: 'q', by: 'x', reason: 'no' })
        .thenThrows(Conflict);
      given(review, [registered, drafted('q')])
        .when({ type: 'RetireExposure', ekey: 'q', by: 'x' })
        .thenThrows(Conflict);
      given(review, [registered, drafted('q'), submitted('q'), approved('q')])
        .when({ type: 'RetireExposure', ekey: 'q', by: 'x' })
        .then([{ type: 'ExposureRetired', data: { ekey: 'q', by: 'x', at } }]);
    });

    it('an approved exposure cannot be deleted; a draft can', () => {
      given(review, [registered, drafted('q'), submitted('q'), approved('q')])
        .when({ type: 'DeleteExposure', ekey: 'q', by: 'x' })
        .thenThrows(Conflict, /retire it first/);
      given(review, [registered, drafted('q')])
        .when({ type: 'DeleteExposure', ekey: 'q', by: 'x' })
        .then([{ type: 'ExposureDeleted', data: { ekey: 'q', by: 'x', at } }]);
    });

    it('an unknown exposure is not found', () => {
      given(review, [registered]).when({ type: 'SubmitExposure', ekey: 'nope', by: 'x' }).thenThrows(NotFound);
    });

    it('an edit returns an approved exposure to draft and unpins its hash', () => {
      const edited: ConnectorEvent = {
        type: 'ExposureEdited',
        data: {
          ekey: 'q',
          displayName: 'q',
          description: '',
          sql: 'select 2',
          sqlHash: 'h2',
          parameters: [],
          maxRows: null,
          editorId: 'author',
          at,
        },
      };
      const state = [registered, drafted('q'), submitted('q'), approved('q'), edited].reduce(
        connectorAggregate.evolve,
        connectorAggregate.initialState,
      );
      expect((state as { exposures: Record<string, unknown> }).exposures.q).to.deep.equal({
        status: 'draft',
        sqlHash: 'h2',
        authors: ['author'],
        approvedSqlHash: null,
      });
    });
  });
});
