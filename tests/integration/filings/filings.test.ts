import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import JSZip from 'jszip';
import { signIn, type Session } from '../../support/auth';
import { startSecondInstance, startTestPlatform, type TestPlatform } from '../../support/platform';
import type { WellFixture } from '../checklists/graph-fixture';
import { fileGasWellFormPr } from './file-form-pr';
import { TEST_EVIDENCE_KEY_2 } from '../../support/secrets';
import { opsEnv, runOps } from '../../support/ops-cli';
import { verifyEvidence } from '../../../src/contexts/filings';
import { extractPdf } from '../../../src/platform/infra/extraction/pdf';

/** A gas well's Form PR filed through the loop, then read back as a filing, a PDF and a signed package. */
describe('filings: the resource, the Form PR document and the signed evidence package', function () {
  this.timeout(120_000);
  let t: TestPlatform;
  let operator: Session;
  let reviewer: Session;
  let stranger: Session;
  let well: WellFixture;
  let filingId: string;
  let approvalId: string;
  let checklistId: string;
  let evidence: Buffer;
  let jwks: { keys: Array<Record<string, string>> };

  const bytes = async (route: string, session: Session) => {
    const response = await fetch(`${t.publicUrl}/api/v1${route}`, { headers: session.headers });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      body: Buffer.from(await response.arrayBuffer()),
    };
  };
  /** The package with one entry rewritten, everything else as downloaded. */
  const altered = async (name: string, change: (content: Buffer) => Buffer) => {
    const zip = await JSZip.loadAsync(evidence);
    zip.file(name, change(await zip.file(name)!.async('nodebuffer')));
    return zip.generateAsync({ type: 'nodebuffer' });
  };
  const manifestOf = async (zip: Buffer) =>
    JSON.parse(await (await JSZip.loadAsync(zip)).file('manifest.json')!.async('string'));

  before(async () => {
    t = await startTestPlatform();
    const tenantId = randomUUID();
    operator = await signIn(t, { roles: ['operator'], tenantId });
    reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    const admin = await signIn(t, { roles: ['admin'], tenantId });
    stranger = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    ({ well, checklistId, approvalId, filingId } = await fileGasWellFormPr(t, { admin, operator, reviewer }));
  });
  after(() => t?.close());

  it('lists the filing with its entity, form, period, approval, checklist and reviewer; filters and pages like /approvals', async () => {
    const got = await t.api.get(`/filings/${filingId}`, operator.headers);
    expect(got.status).to.equal(200);
    expect(got.body).to.include({
      filing_id: filingId,
      form: 'form_pr',
      period: well.period,
      status: 'filed',
      approval_id: approvalId,
      checklist_id: checklistId,
      reviewer_id: reviewer.userId,
      submitted_by: operator.userId,
      decision: 'approved',
    });
    expect(got.body.entity).to.include({ id: well.api, label: 'Well', api_number: well.api });
    expect(got.body.reviewer).to.include({ id: reviewer.userId, email: reviewer.email });
    expect(got.body.entity.name).to.match(/^JONES 97/);
    expect(Date.parse(got.body.filed_at)).to.be.greaterThan(0);

    const list = await t.api.get(
      `/filings?entity_id=${well.api}&form=form_pr&period=${well.period}&status=filed`,
      operator.headers,
    );
    expect(list.status).to.equal(200);
    expect(list.body.total).to.equal(1);
    expect(list.body.filings[0].filing_id).to.equal(filingId);
    expect(
      (await t.api.get(`/filings?approval_id=${approvalId}`, operator.headers)).body.filings.map(
        (f: any) => f.filing_id,
      ),
    ).to.deep.equal([filingId]);
    expect((await t.api.get('/filings?status=in_review', operator.headers)).body.total).to.equal(0);
    const paged = await t.api.get('/filings?limit=1&offset=1', operator.headers);
    expect(paged.body).to.deep.include({ filings: [], total: 1 });
    expect((await t.api.get('/filings?status=lost', operator.headers)).status).to.equal(422);
  });

  it("answers 404 for another tenant's filing, its document and its evidence, and lists nothing there", async () => {
    expect((await t.api.get(`/filings/${filingId}`, stranger.headers)).status).to.equal(404);
    expect((await bytes(`/filings/${filingId}/form.pdf`, stranger)).status).to.equal(404);
    expect((await bytes(`/filings/${filingId}/evidence`, stranger)).status).to.equal(404);
    expect((await t.api.get('/filings', stranger.headers)).body.total).to.equal(0);
  });

  it('renders the filed Form PR as a PDF with identification, volumes, dispositions by code and the reviewer', async () => {
    const pdf = await bytes(`/filings/${filingId}/form.pdf`, operator);
    expect(pdf.status).to.equal(200);
    expect(pdf.type).to.equal('application/pdf');
    const { text } = await extractPdf(pdf.body, 100_000);
    for (const expected of [
      'Form PR',
      'PERMIAN TEST OPERATING LLC',
      well.api,
      'SPRABERRY (TREND AREA)',
      'YOAKUM',
      '08',
      well.period,
      'Condensate produced',
      '3,110 bbl',
      'Gas-well gas produced',
      '9,330 mcf',
      'code 01',
      '280 mcf',
      'code 10',
      '900 mcf',
      reviewer.email,
    ]) {
      expect(text, expected).to.contain(expected);
    }
  });

  it('packages manifest.json, its detached EdDSA signature, the PDF and the artifacts; the public JWKS verifies it', async () => {
    const response = await bytes(`/filings/${filingId}/evidence`, operator);
    expect(response.status).to.equal(200);
    expect(response.type).to.equal('application/zip');
    evidence = response.body;
    const zip = await JSZip.loadAsync(evidence);
    const names = Object.keys(zip.files).sort();
    expect(names).to.include.members(['manifest.json', 'manifest.jws', 'form-pr.pdf']);
    expect(names.some((n) => n.startsWith('artifacts/1-') && n.endsWith('meter.txt'))).to.equal(true);
    const manifest = await manifestOf(evidence);
    expect(manifest).to.include({ filing_id: filingId, period: well.period, status: 'filed' });
    expect(manifest.form).to.include({ id: 'form_pr' });
    expect(manifest.entity).to.include({ id: well.api, label: 'Well' });
    const gas = manifest.figures.find((f: any) => f.label === 'Gas-well gas produced');
    expect(gas).to.include({ value: 9330, unit: 'mcf' });
    expect(gas.source.graph).to.equal(`graph:Well/${well.api}`);
    expect(gas.source.vertices[0]).to.include({ label: 'Well', entity_id: well.api });
    expect(gas.source.vertices[0].set_by).to.include({ type: 'VertexCreated' });
    expect(gas.source.vertices[0].set_by.position).to.match(/^\d+\/\d+$/);
    expect(manifest.checklist.items.every((i: any) => i.status === 'complete')).to.equal(true);
    expect(manifest.checklist.items[0].notes).to.equal('checked item 0');
    expect(manifest.checklist.artifacts.find((a: any) => a.filename === 'meter.txt').sha256).to.match(/^[0-9a-f]{64}$/);
    expect(manifest.approval).to.include({
      approval_id: approvalId,
      decision: 'approved',
      comments: 'figures match the meters',
    });
    expect(manifest.approval.reviewer).to.include({ id: reviewer.userId, email: reviewer.email });
    expect(manifest.approval.requested_by).to.include({ id: operator.userId });
    const checks = Object.fromEntries(manifest.validations.form_pr.checks.map((c: any) => [c.key, c.passed]));
    expect(checks).to.deep.equal({
      dispositions_balance: true,
      disposition_codes_valid: true,
      flaring_authorized_in_month: true,
    });
    expect(manifest.validations.at_review).to.be.an('array').that.is.not.empty;
    expect(manifest.files.map((f: any) => f.path)).to.include('form-pr.pdf');
    const streams = manifest.audit_anchors.map((a: any) => a.stream as string);
    expect(streams.some((s: string) => s.startsWith('checklists.checklist-'))).to.equal(true);
    expect(streams.some((s: string) => s.startsWith('approvals.approval-'))).to.equal(true);
    expect(streams.some((s: string) => s.startsWith('graph.vertex-'))).to.equal(true);
    expect(manifest.audit_anchors[0].chain_hash).to.be.a('string').that.is.not.empty;

    const header = JSON.parse(
      Buffer.from((await zip.file('manifest.jws')!.async('string')).split('.')[0], 'base64url').toString(),
    );
    expect(header).to.include({ alg: 'EdDSA' });
    const published = await fetch(`${t.publicUrl}/.well-known/jwks.json`);
    expect(published.status).to.equal(200);
    jwks = await published.json();
    expect(jwks.keys.map((k) => k.kid)).to.include(header.kid);
    expect(jwks.keys[0]).to.include({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(jwks.keys[0]).to.not.have.property('d');
    const verdict = await verifyEvidence(evidence, jwks as never);
    expect(verdict.valid, JSON.stringify(verdict.checks)).to.equal(true);
    expect(verdict.kid).to.equal(header.kid);
  });

  it('detects an altered figure, an altered artifact, an altered PDF and an altered manifest, each in turn', async () => {
    const figure = await altered('manifest.json', (b) =>
      Buffer.from(b.toString().replace('"value": 9330', '"value": 9331')),
    );
    expect((await manifestOf(figure)).figures.some((f: any) => f.value === 9331)).to.equal(true);
    const artifactName = Object.keys((await JSZip.loadAsync(evidence)).files).find(
      (n) => n.startsWith('artifacts/') && !n.endsWith('/'),
    )!;
    const cases: Array<[string, Buffer, string]> = [
      ['a figure', figure, 'signature'],
      [
        'an artifact',
        await altered(artifactName, (b) => Buffer.from(b.toString().replace('9330', '9300'))),
        `file ${artifactName}`,
      ],
      [
        'the PDF',
        await altered('form-pr.pdf', (b) => Buffer.concat([b, Buffer.from('%tampered\n')])),
        'file form-pr.pdf',
      ],
      [
        'the manifest',
        await altered('manifest.json', (b) =>
          Buffer.from(b.toString().replace('figures match the meters', 'figures were estimated')),
        ),
        'signature',
      ],
    ];
    for (const [what, zip, failing] of cases) {
      const verdict = await verifyEvidence(zip, jwks as never);
      expect(verdict.valid, what).to.equal(false);
      expect(
        verdict.checks.filter((c) => !c.passed).map((c) => c.check),
        what,
      ).to.deep.equal([failing]);
    }
  });

  it('ops evidence verify checks a package offline against a JWKS file; ops evidence replay reproduces the filing from the log', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'evidence-'));
    await writeFile(path.join(dir, 'evidence.zip'), evidence);
    await writeFile(path.join(dir, 'jwks.json'), JSON.stringify(jwks));
    await writeFile(
      path.join(dir, 'pdf-altered.zip'),
      await altered('form-pr.pdf', (b) => Buffer.concat([b, Buffer.from(' ')])),
    );
    const env = opsEnv(t.platform.db.url);
    const good = await runOps(
      env,
      'evidence',
      'verify',
      path.join(dir, 'evidence.zip'),
      '--jwks',
      path.join(dir, 'jwks.json'),
    );
    expect(good.code, good.stderr).to.equal(0);
    expect(good.stdout).to.contain(`VALID: filing ${filingId}`);
    const bad = await runOps(
      env,
      'evidence',
      'verify',
      path.join(dir, 'pdf-altered.zip'),
      '--jwks',
      path.join(dir, 'jwks.json'),
    );
    expect(bad.code).to.equal(2);
    expect(bad.stdout).to.contain('FAILED  file form-pr.pdf');
    const replay = await runOps(env, 'evidence', 'replay', filingId, '--zip', path.join(dir, 'evidence.zip'));
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.contain('equal     Gas-well gas produced: filed 9330 mcf, recomputed 9330 mcf');
    expect(replay.stdout).to.contain('REPRODUCED');
    // Without a package: against the figures the reviewer approved and the checks they saw.
    const againstReview = await runOps(env, 'evidence', 'replay', filingId);
    expect(againstReview.code, againstReview.stdout + againstReview.stderr).to.equal(0);
    expect(againstReview.stdout).to.contain('equal     validation dispositions_balance: passed');
  });

  it('keeps the old key in the JWKS after a rotation, so packages signed before still verify', async () => {
    const second = await startSecondInstance(t, { EVIDENCE_SIGNING_KEY: TEST_EVIDENCE_KEY_2 });
    try {
      const rotated = await (await fetch(`${second.platform.publicUrl}/.well-known/jwks.json`)).json();
      expect(rotated.keys).to.have.length(jwks.keys.length + 1);
      expect((await verifyEvidence(evidence, rotated)).valid).to.equal(true);
      const fresh = await fetch(`${second.platform.publicUrl}/api/v1/filings/${filingId}/evidence`, {
        headers: operator.headers,
      });
      const verdict = await verifyEvidence(Buffer.from(await fresh.arrayBuffer()), rotated);
      expect(verdict.valid).to.equal(true);
      expect(verdict.kid).to.equal(rotated.keys[rotated.keys.length - 1].kid);
      // The first key's JWKS alone cannot vouch for a package signed with the new key.
      expect(
        (
          await verifyEvidence(
            Buffer.from(
              await (
                await fetch(`${second.platform.publicUrl}/api/v1/filings/${filingId}/evidence`, {
                  headers: operator.headers,
                })
              ).arrayBuffer(),
            ),
            jwks as never,
          )
        ).valid,
      ).to.equal(false);
    } finally {
      await second.platform.stop();
    }
  });
});
