import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ARTIFACT_BLOBS_TABLE } from '../../../src/platform/infra/artifact-blobs';
import { formPrDueDate } from '../../../commands/checklists/assessment/working-days';
import { checklistAggregate } from '../../../streams/checklists/checklist';
import { signIn, type Session } from '../../support/auth';
import * as files from '../../support/files';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { createWell, type WellFixture } from './graph-fixture';

/** Checklists over HTTP: templates, create, items, submit → approval → decision, exception, reject, artifacts. */
describe('checklists API', () => {
  let t: TestPlatform;
  let tenantId: string;
  let operator: Session;
  let reviewer: Session;
  let admin: Session;
  let well: WellFixture;

  before(async () => {
    t = await startTestPlatform();
    tenantId = randomUUID();
    operator = await signIn(t, { roles: ['operator'], tenantId });
    reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    admin = await signIn(t, { roles: ['admin'], tenantId });
    well = await createWell(t, admin);
  });
  after(() => t.close());

  const create = (body: Record<string, unknown> = {}) =>
    t.api.post(
      '/checklists',
      { template_id: 'form_pr', entity_id: well.api, entity_type: 'well', domain: 'production', ...body },
      operator.headers,
    );
  const completeAll = async (id: string, count: number) => {
    for (let i = 0; i < count; i++)
      expect(
        (await t.api.patch(`/checklists/${id}/items/${i}`, { status: 'complete' }, operator.headers)).status,
      ).to.equal(200);
  };

  it('GET /checklists/templates lists the shipped forms with data_table and analysis items', async () => {
    const response = await t.api.get('/checklists/templates', operator.headers);
    expect(response.status).to.equal(200);
    const ids = response.body.templates.map((x: any) => x.template_id);
    expect(ids).to.include.members(['form_pr', 'r_32', 'w_1', 'w_2_g_1', 'w_3x']);
    const pr = response.body.templates.find((x: any) => x.template_id === 'form_pr');
    expect(pr.domain).to.equal('production');
    expect(pr.items.map((i: any) => i.item_type)).to.include.members(['data_table', 'analysis']);
    expect(pr.items.map((i: any) => i.label).join(' '))
      .to.match(/disposition/i)
      .and.match(/casinghead/i);
  });

  it('POST /checklists answers 201 with every item of the template; GET shows the same', async () => {
    const response = await create();
    expect(response.status).to.equal(201);
    expect(response.body).to.include({
      entity_id: well.api,
      domain: 'production',
      status: 'in_progress',
      template_id: 'form_pr',
      period: well.period,
      due_date: formPrDueDate(well.period),
    });
    expect(response.body.items).to.have.length(6);
    expect(response.body.items[0]).to.include({ index: 0, status: 'not_started', item_type: 'data_table' });
    const again = await t.api.get(`/checklists/${response.body.checklist_id}`, operator.headers);
    expect(again.body.items).to.deep.equal(response.body.items);
  });

  it('an unknown template or entity is a 422 naming the field', async () => {
    const template = await create({ template_id: 'form_zz' });
    expect(template.status).to.equal(422);
    expect(template.body.detail[0].loc).to.deep.equal(['body', 'template_id']);
    const entity = await create({ entity_id: '42-501-99999999' });
    expect(entity.status).to.equal(422);
    expect(entity.body.detail[0].loc).to.deep.equal(['body', 'entity_id']);
    const domain = await create({ domain: 'drilling' });
    expect(domain.body.detail[0].loc).to.deep.equal(['body', 'domain']);
  });

  // A regression: `entity_type: "Well"` (the graph's own label) was refused with "template form_pr is about a well".
  it('entity types match the graph labels case-insensitively; a Form PR may be about a lease, not a gas lease', async () => {
    for (const entity_type of ['Well', 'WELL', 'well']) {
      const response = await create({ entity_type });
      expect(response.status, entity_type).to.equal(201);
      expect(response.body.entity_type).to.equal('Well');
    }
    const pad = await create({ entity_type: 'Wellpad' });
    expect(pad.status).to.equal(422);
    expect(pad.body.detail[0]).to.deep.include({
      loc: ['body', 'entity_type'],
      msg: 'template form_pr is about a Well or a Lease, not Wellpad',
    });
    const lease = async (id: string, code: string) =>
      expect(
        (
          await t.api.post(
            '/graph/entities',
            { label: 'Lease', properties: { entity_id: id, name: 'JONES 97', oil_gas_code: code } },
            admin.headers,
          )
        ).status,
      ).to.equal(201);
    const oil = `O-08-${Math.floor(Math.random() * 90000) + 10000}`;
    const gas = `G-08-${Math.floor(Math.random() * 90000) + 10000}`;
    await lease(oil, 'O');
    await lease(gas, 'G');
    const onLease = await create({ entity_type: 'lease', entity_id: oil });
    expect(onLease.status).to.equal(201);
    expect(onLease.body).to.include({ entity_type: 'Lease', entity_id: oil });
    const gasLease = await create({ entity_type: 'Lease', entity_id: gas });
    expect(gasLease.status).to.equal(422);
    expect(gasLease.body.detail[0].msg).to.contain('filed per gas well');
    expect((await create({ entity_type: 'Lease', entity_id: well.api })).body.detail[0].msg).to.equal(
      `no Lease ${well.api} in the knowledge graph`,
    );
  });

  it('PATCH updates metadata and items (status, notes); an item index out of range is 404', async () => {
    const { checklist_id } = (await create()).body;
    const meta = await t.api.patch(
      `/checklists/${checklist_id}`,
      { title: 'PR for JONES 97', metadata: { preparer: 'ann' } },
      operator.headers,
    );
    expect(meta.status).to.equal(200);
    expect(meta.body).to.include({ title: 'PR for JONES 97' });
    expect(meta.body.metadata).to.deep.equal({ preparer: 'ann' });
    const item = await t.api.patch(
      `/checklists/${checklist_id}/items/2`,
      { status: 'in_progress', notes: 'waiting on gas meter' },
      operator.headers,
    );
    expect(item.status).to.equal(200);
    expect(item.body).to.include({
      index: 2,
      status: 'in_progress',
      notes: 'waiting on gas meter',
      updated_by: operator.userId,
    });
    expect(
      (await t.api.patch(`/checklists/${checklist_id}/items/6`, { status: 'complete' }, operator.headers)).status,
    ).to.equal(404);
    expect(
      (await t.api.patch(`/checklists/${checklist_id}/items/0`, { status: 'done' }, operator.headers)).status,
    ).to.equal(422);
  });

  it('submit with incomplete items is 409 naming them; complete, it opens an approval and moves to in_review', async () => {
    const { checklist_id } = (await create()).body;
    await completeAll(checklist_id, 4);
    const early = await t.api.post(`/checklists/${checklist_id}/submit`, {}, operator.headers);
    expect(early.status).to.equal(409);
    expect(early.body.detail).to.contain('#4').and.contain('#5');
    expect(early.body.incomplete_items.map((i: any) => i.index)).to.deep.equal([4, 5]);

    await completeAll(checklist_id, 6);
    const submitted = await t.api.post(`/checklists/${checklist_id}/submit`, {}, operator.headers);
    expect(submitted.status).to.equal(200);
    expect(submitted.body.status).to.equal('in_review');
    const approvalId = submitted.body.approval.approval_id;
    expect(submitted.body.pending_approval_id).to.equal(approvalId);
    const approval = (await t.api.get(`/approvals/${approvalId}`, reviewer.headers)).body;
    expect(approval).to.include({ status: 'pending', checkpoint_type: 'filing_submission' });
    expect(approval.payload).to.include({ filing_type: 'PR', entity_id: well.api, checklist_id });
    expect(
      (await t.api.patch(`/checklists/${checklist_id}/items/0`, { notes: 'late' }, operator.headers)).status,
    ).to.equal(409);

    const decided = await t.api.post(`/approvals/${approvalId}/decide`, { decision: 'approved' }, reviewer.headers);
    expect(decided.status).to.equal(200);
    const after = (await t.api.get(`/checklists/${checklist_id}`, operator.headers)).body;
    expect(after.status).to.equal('approved');
    expect(after.review).to.include({ approval_id: approvalId, decision: 'approved', reviewer_id: reviewer.userId });
  });

  it('submit needs filings.submit (a reviewer gets 403)', async () => {
    const { checklist_id } = (await create()).body;
    const response = await t.api.post(`/checklists/${checklist_id}/submit`, {}, reviewer.headers);
    expect(response.status).to.equal(403);
  });

  it('a rejected submission returns the checklist to in_progress for rework', async () => {
    const { checklist_id } = (await create()).body;
    await completeAll(checklist_id, 6);
    const { approval } = (await t.api.post(`/checklists/${checklist_id}/submit`, {}, operator.headers)).body;
    await t.api.post(
      `/approvals/${approval.approval_id}/decide`,
      { decision: 'rejected', comments: 'code 10 volume too high' },
      reviewer.headers,
    );
    const back = (await t.api.get(`/checklists/${checklist_id}`, operator.headers)).body;
    expect(back.status).to.equal('in_progress');
    expect(back.pending_approval_id).to.equal(null);
    expect(back.review).to.include({ decision: 'rejected', comments: 'code 10 volume too high' });
  });

  it('an exception request opens a checklist_exception approval; granted, the checklist is exception_granted', async () => {
    const { checklist_id } = (await create()).body;
    const bad = await t.api.post(
      `/checklists/${checklist_id}/exception`,
      { reason: 'shut in', item_indexes: [9] },
      operator.headers,
    );
    expect(bad.status).to.equal(404);
    const response = await t.api.post(
      `/checklists/${checklist_id}/exception`,
      { reason: 'well shut in all month', item_indexes: [1, 2] },
      operator.headers,
    );
    expect(response.status).to.equal(200);
    expect(response.body.status).to.equal('exception_requested');
    expect(response.body.exception).to.include({ reason: 'well shut in all month' });
    expect(response.body.exception.item_indexes).to.deep.equal([1, 2]);
    const approval = (await t.api.get(`/approvals/${response.body.approval.approval_id}`, reviewer.headers)).body;
    expect(approval.checkpoint_type).to.equal('checklist_exception');
    await t.api.post(`/approvals/${approval.approval_id}/decide`, { decision: 'approved' }, reviewer.headers);
    expect((await t.api.get(`/checklists/${checklist_id}`, operator.headers)).body.status).to.equal(
      'exception_granted',
    );
  });

  it('reject closes the checklist for good and rejects the approval it was waiting on', async () => {
    const { checklist_id } = (await create()).body;
    await completeAll(checklist_id, 6);
    const { approval } = (await t.api.post(`/checklists/${checklist_id}/submit`, {}, operator.headers)).body;
    expect(
      (await t.api.post(`/checklists/${checklist_id}/reject`, { reason: 'wrong well' }, operator.headers)).status,
    ).to.equal(403);
    const rejected = await t.api.post(`/checklists/${checklist_id}/reject`, { reason: 'wrong well' }, reviewer.headers);
    expect(rejected.status).to.equal(200);
    expect(rejected.body.status).to.equal('rejected');
    expect(rejected.body.rejection).to.include({ reason: 'wrong well', rejected_by: reviewer.userId });
    expect((await t.api.get(`/approvals/${approval.approval_id}`, reviewer.headers)).body).to.include({
      status: 'rejected',
    });
    expect(
      (await t.api.post(`/checklists/${checklist_id}/reject`, { reason: 'again' }, reviewer.headers)).status,
    ).to.equal(409);
    expect((await t.api.post(`/checklists/${checklist_id}/submit`, {}, operator.headers)).status).to.equal(409);
  });

  it('four eyes: the submitter cannot reject their own submission (403, recorded); another reviewer can', async () => {
    const { checklist_id } = (
      await t.api.post(
        '/checklists',
        { template_id: 'form_pr', entity_id: well.api, entity_type: 'well', domain: 'production' },
        admin.headers,
      )
    ).body;
    for (let i = 0; i < 6; i++)
      await t.api.patch(`/checklists/${checklist_id}/items/${i}`, { status: 'complete' }, admin.headers);
    const { approval } = (await t.api.post(`/checklists/${checklist_id}/submit`, {}, admin.headers)).body;
    const refused = await t.api.post(`/checklists/${checklist_id}/reject`, { reason: 'my own' }, admin.headers);
    expect(refused.status).to.equal(403);
    expect(refused.body.detail).to.match(/four eyes/);
    const log = await t.deps.store.readStream(checklistAggregate.stream(tenantId, checklist_id));
    expect(log.map((e) => e.type)).to.include('ChecklistRejectionRefused');
    expect((await t.api.get(`/checklists/${checklist_id}`, admin.headers)).body.status).to.equal('in_review');
    expect(
      (await t.api.post(`/approvals/${approval.approval_id}/decide`, { decision: 'approved' }, admin.headers)).status,
    ).to.equal(403);
    expect(
      (await t.api.post(`/checklists/${checklist_id}/reject`, { reason: 'wrong well' }, reviewer.headers)).status,
    ).to.equal(200);
  });

  it("another tenant's checklist is 404", async () => {
    const { checklist_id } = (await create()).body;
    const stranger = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    expect((await t.api.get(`/checklists/${checklist_id}`, stranger.headers)).status).to.equal(404);
    expect(
      (await t.api.patch(`/checklists/${checklist_id}/items/0`, { status: 'complete' }, stranger.headers)).status,
    ).to.equal(404);
    expect((await t.api.get(`/checklists/${checklist_id}/artifacts`, stranger.headers)).status).to.equal(404);
    expect((await t.api.get(`/workspaces/${checklist_id}/stream`, stranger.headers)).status).to.equal(404);
  });

  describe('artifacts', () => {
    const url = (id: string, idx: number, type = 'run_ticket') =>
      `${t.publicUrl}/api/v1/checklists/${id}/items/${idx}/artifacts?artifact_type=${type}`;

    it('uploads to an item (multipart), lists per item and per checklist, deletes; bytes live in the blob table, not in events', async () => {
      const { checklist_id } = (await create()).body;
      const bytes = files.csvOf([
        ['period', 'oil_bbls'],
        [well.period, 3110],
      ]);
      const uploaded = await files.upload(
        url(checklist_id, 1),
        { bytes, filename: 'run-tickets.csv', contentType: 'text/csv' },
        { headers: operator.headers },
      );
      expect(uploaded.status).to.equal(201);
      expect(uploaded.body).to.include({
        item_index: 1,
        artifact_type: 'run_ticket',
        filename: 'run-tickets.csv',
        content_type: 'text/csv',
        size_bytes: bytes.length,
        source: 'upload',
      });
      const artifactId = uploaded.body.artifact_id;

      const pdf = await files.pdfWithText([['Gas analysis', 'H2S 0 ppm']]);
      await files.upload(
        url(checklist_id, 3, 'gas_analysis'),
        { bytes: pdf, filename: 'analysis.pdf', contentType: 'application/pdf' },
        { headers: operator.headers },
      );
      const json = await t.api.post(
        `/checklists/${checklist_id}/items/3/artifacts`,
        { artifact_type: 'note', content: 'meter calibrated on the 3rd', filename: 'note.txt' },
        operator.headers,
      );
      expect(json.status).to.equal(201);

      expect((await t.api.get(`/checklists/${checklist_id}/items/1/artifacts`, operator.headers)).body.total).to.equal(
        1,
      );
      const all = await t.api.get(`/checklists/${checklist_id}/artifacts`, operator.headers);
      expect(all.body.artifacts.map((a: any) => a.item_index)).to.deep.equal([1, 3, 3]);
      const content = await fetch(`${t.publicUrl}/api/v1/checklists/${checklist_id}/artifacts/${artifactId}/content`, {
        headers: operator.headers,
      });
      expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).to.equal(true);

      const events = await t.deps.store.readStream(checklistAggregate.stream(tenantId, checklist_id));
      const added = events.filter((e) => e.type === 'ArtifactAdded');
      expect(added).to.have.length(3);
      expect(JSON.stringify(added.map((e) => e.data))).not.to.contain('meter calibrated');
      const blobs = await t.deps.knex(ARTIFACT_BLOBS_TABLE).where({ tenant_id: tenantId });
      expect(blobs.length).to.be.at.least(3);

      expect(
        (await t.api.delete(`/checklists/${checklist_id}/items/3/artifacts/${artifactId}`, operator.headers)).status,
      ).to.equal(404);
      const deleted = await t.api.delete(
        `/checklists/${checklist_id}/items/1/artifacts/${artifactId}`,
        operator.headers,
      );
      expect(deleted.status).to.equal(200);
      expect((await t.api.get(`/checklists/${checklist_id}/items/1/artifacts`, operator.headers)).body.total).to.equal(
        0,
      );
      const after = await t.deps.store.readStream(checklistAggregate.stream(tenantId, checklist_id));
      expect(after.filter((e) => e.type === 'ArtifactRemoved')).to.have.length(1);
    });

    it('applies the attachment rules: 415 for a disallowed type, 422 for an unreadable file, 404 for an item out of range', async () => {
      const { checklist_id } = (await create()).body;
      const png = files.grayscalePng(8, 8);
      expect(
        (
          await files.upload(
            url(checklist_id, 0),
            { bytes: png, filename: 'photo.png', contentType: 'image/png' },
            { headers: operator.headers },
          )
        ).status,
      ).to.equal(415);
      const scan = await files.imageOnlyPdf();
      expect(
        (
          await files.upload(
            url(checklist_id, 0),
            { bytes: scan, filename: 'scan.pdf', contentType: 'application/pdf' },
            { headers: operator.headers },
          )
        ).status,
      ).to.equal(422);
      expect(
        (
          await files.upload(
            url(checklist_id, 17),
            { bytes: files.csvOf([['a'], [1]]), filename: 'a.csv', contentType: 'text/csv' },
            { headers: operator.headers },
          )
        ).status,
      ).to.equal(404);
    });
  });
});
