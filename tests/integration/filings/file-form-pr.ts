import { expect } from 'chai';
import type { Session } from '../../support/auth';
import { eventually } from '../../support/eventually';
import type { TestPlatform } from '../../support/platform';
import { createWell, type WellFixture } from '../checklists/graph-fixture';

/**
 * A gas well's Form PR filed through the whole loop over HTTP: checklist, every item complete
 * with a note, an artifact on item 1, submit, approve; resolves once the filing reads `filed`.
 */
export async function fileGasWellFormPr(
  t: TestPlatform,
  people: { admin: Session; operator: Session; reviewer: Session },
): Promise<{ well: WellFixture; checklistId: string; approvalId: string; filingId: string }> {
  const { admin, operator, reviewer } = people;
  const well = await createWell(t, admin, { wellType: 'gas' });
  const created = await t.api.post(
    '/checklists',
    { template_id: 'form_pr', entity_id: well.api, entity_type: 'well', domain: 'production' },
    operator.headers,
  );
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  const checklistId: string = created.body.checklist_id;
  for (let i = 0; i < created.body.items.length; i++) {
    expect(
      (
        await t.api.patch(
          `/checklists/${checklistId}/items/${i}`,
          { status: 'complete', notes: `checked item ${i}` },
          operator.headers,
        )
      ).status,
    ).to.equal(200);
  }
  const artifact = await t.api.post(
    `/checklists/${checklistId}/items/1/artifacts`,
    { artifact_type: 'meter_reading', filename: 'meter.txt', content: 'Meter 7 reading for the month: 9330 mcf' },
    operator.headers,
  );
  expect(artifact.status, JSON.stringify(artifact.body)).to.equal(201);
  const submitted = await t.api.post(
    `/checklists/${checklistId}/submit`,
    { summary: 'PR for the gas well' },
    operator.headers,
  );
  expect(submitted.status, JSON.stringify(submitted.body)).to.equal(200);
  const approvalId: string = submitted.body.approval.approval_id;
  await eventually(async () => (await t.api.get(`/approvals/${approvalId}`, reviewer.headers)).status === 200);
  expect(
    (
      await t.api.post(
        `/approvals/${approvalId}/decide`,
        { decision: 'approved', comments: 'figures match the meters' },
        reviewer.headers,
      )
    ).status,
  ).to.equal(200);
  const filingId = `filing-${checklistId}`;
  await eventually(async () => (await t.api.get(`/filings/${filingId}`, operator.headers)).body?.status === 'filed');
  return { well, checklistId, approvalId, filingId };
}
