import { Router } from 'express';
import { evidenceJwks, getFiling, listFilings, type FilingView } from '../../../queries/filings/filings';
import type { PlatformDeps } from '../../platform/context-module';
import { Conflict, NotFound } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';
import { declareRoutes } from '../../platform/http/route';
import { parseParams } from '../../platform/http/validation';
import { requirePermission } from '../identity';
import { buildEvidencePackage, filingRecord, formPrDocument } from './evidence';
import { renderFormPr } from './form-pr-pdf';
import { FilingListQuery, FilingParams } from './schemas';
import type { EvidenceSigner } from './signing';

export const JWKS_PATH = '/.well-known/jwks.json';
const JWKS_REFRESH_MS = 60_000;

/** A filed filing of the caller's tenant: 404 for a missing one or another tenant's, 409 before it is filed. */
async function filedFiling(deps: PlatformDeps, tenantId: string, id: string): Promise<FilingView> {
  const filing = await getFiling(deps.knex, tenantId, id);
  if (!filing) throw new NotFound(`Filing ${id} not found`);
  if (filing.status !== 'filed')
    throw new Conflict(`Filing ${id} is ${filing.status}: only a filed filing has a document and evidence`);
  return filing;
}

const attachmentName = (filing: FilingView, ext: string) =>
  `${filing.form}-${filing.period ?? 'undated'}-${filing.entity.id}.${ext}`.replace(/[^\w.-]+/g, '_');

/** Filings (docs/filings.md): the list, one filing, its Form PR document and its signed evidence package. */
export function filingRoutes(deps: PlatformDeps, signer: () => EvidenceSigner): Router {
  const router = Router();
  const route = declareRoutes(router, deps, requirePermission);

  route.get('/filings', {
    query: FilingListQuery,
    read: ({ identity, query }) => listFilings(deps.knex, identity.tenantId, query),
  });

  route.get('/filings/:id', {
    params: FilingParams,
    read: async ({ identity, params }) => {
      const filing = await getFiling(deps.knex, identity.tenantId, params.id);
      if (!filing) throw new NotFound(`Filing ${params.id} not found`);
      return filing;
    },
  });

  // A custom body: the Form PR document is a PDF with its own headers, not JSON.
  router.get('/filings/:id/form.pdf', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const filing = await filedFiling(deps, tenantId, parseParams(req, FilingParams).id);
    if (filing.form !== 'form_pr')
      throw new NotFound(`Filing ${filing.filing_id} is a ${filing.form_name} filing: no Form PR document`);
    const pdf = await renderFormPr(
      await formPrDocument(deps.knex, tenantId, await filingRecord(deps, tenantId, filing)),
    );
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename="${attachmentName(filing, 'pdf')}"`);
    res.send(Buffer.from(pdf));
  });

  // A custom body: the evidence package is a zip file with its own headers.
  router.get('/filings/:id/evidence', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const filing = await filedFiling(deps, tenantId, parseParams(req, FilingParams).id);
    const record = await filingRecord(deps, tenantId, filing);
    const pkg = await buildEvidencePackage(
      deps.knex,
      tenantId,
      record,
      signer(),
      `${deps.config.http.publicBaseUrl.replace(/\/+$/, '')}${JWKS_PATH}`,
    );
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="${attachmentName(filing, 'evidence.zip')}"`);
    res.send(pkg.zip);
  });

  return router;
}

/** `GET /.well-known/jwks.json`: public, outside /api/v1, every evidence key ever published. */
export function jwksRoutes(deps: PlatformDeps): Router {
  const router = Router();
  // Outside the gateway and its rate limit: anyone may ask, so the database is asked at most once a minute.
  let cached: { at: number; jwks: Promise<Awaited<ReturnType<typeof evidenceJwks>>> } | null = null;
  // A custom body: the answer carries its own Cache-Control header.
  router.get(JWKS_PATH, async (_req, res) => {
    if (!cached || Date.now() - cached.at > JWKS_REFRESH_MS) cached = { at: Date.now(), jwks: evidenceJwks(deps.knex) };
    const current = cached;
    const jwks = await current.jwks.catch((error) => {
      if (cached === current) cached = null;
      throw error;
    });
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(jwks);
  });
  return router;
}
