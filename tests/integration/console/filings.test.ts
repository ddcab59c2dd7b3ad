import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signIn, type Session } from '../../support/auth';
import { verifyEvidence } from '../../../src/contexts/filings';
import { fileGasWellFormPr } from '../filings/file-form-pr';
import { type ConsoleBrowser, startConsoleBrowser } from './browser';

/** A filed Form PR on its well's page and on its approval's page: the PDF opens, the evidence downloads and verifies. */
describe('console: filings on the entity and approval pages (Chromium)', function () {
  this.timeout(180_000);
  let c: ConsoleBrowser;
  let operator: Session;
  let filed: Awaited<ReturnType<typeof fileGasWellFormPr>>;

  before(async function () {
    const started = await startConsoleBrowser();
    if (!started) this.skip();
    c = started!;
    const tenantId = randomUUID();
    const admin = await signIn(c.t, { roles: ['admin'], tenantId });
    operator = await signIn(c.t, { roles: ['operator'], tenantId });
    const reviewer = await signIn(c.t, { roles: ['reviewer'], tenantId });
    filed = await fileGasWellFormPr(c.t, { admin, operator, reviewer });
  });
  after(() => c?.close());

  /** Both links are on the page; the PDF answers as a PDF and the downloaded package verifies against the JWKS. */
  async function checkFilingLinks(page: Page) {
    const section = page.locator(`[data-filing="${filed.filingId}"]`);
    await section.getByRole('link', { name: 'Form PR (PDF)' }).waitFor();
    const pdfHref = await section.getByRole('link', { name: 'Form PR (PDF)' }).getAttribute('href');
    const pdf = await page.request.get(`${c.base}${pdfHref}`);
    expect(pdf.status()).to.equal(200);
    expect(pdf.headers()['content-type']).to.equal('application/pdf');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('link', { name: 'Download evidence' }).click(),
    ]);
    const zip = await readFile((await download.path())!);
    const jwks = await (await fetch(`${c.base}/.well-known/jwks.json`)).json();
    const verdict = await verifyEvidence(zip, jwks);
    expect(verdict.valid, JSON.stringify(verdict.checks)).to.equal(true);
    expect(verdict.filing_id).to.equal(filed.filingId);
  }

  it("shows the filing on its well's page with the PDF and the evidence download", async () => {
    const { context, page } = await c.as(operator);
    try {
      await page.goto(`${c.base}/graph/Well/${encodeURIComponent(filed.well.api)}`);
      await checkFilingLinks(page);
      await c.shot(page, 'filing-on-well');
    } finally {
      await context.close();
    }
  });

  it("shows the filing on its approval's page", async () => {
    const { context, page } = await c.as(operator);
    try {
      await page.goto(`${c.base}/approvals/${filed.approvalId}`);
      await page.getByRole('heading', { name: 'Filings' }).waitFor();
      await checkFilingLinks(page);
    } finally {
      await context.close();
    }
  });
});
