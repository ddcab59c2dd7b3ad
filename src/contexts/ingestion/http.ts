import { Router } from 'express';
import { ExtractBody, extractFromText } from '../../../commands/ingestion/extract-from-text';
import { importOperatorCsv } from '../../../commands/ingestion/import-operator-csv';
import { recordScadaReadings, ScadaBody } from '../../../commands/ingestion/record-scada-readings';
import { RrcScrapeBody, runRrcScrape } from '../../../commands/ingestion/run-rrc-scrape';
import type { PlatformDeps } from '../../platform/context-module';
import { commandContext } from '../../platform/http/command-context';
import { declareRoutes } from '../../platform/http/route';
import { findImport, listImports } from '../../../queries/ingestion/import-history';
import { ImportIdParams, ImportListQuery } from './schemas';
import { withCsvUpload } from './csv-upload';
import { requirePermission } from '../identity';

/** Ingestion: RRC scrape simulator, operator CSV, SCADA readings, entity extraction. */
const INGEST = 'ingest.run';

export function createIngestionApi(deps: PlatformDeps): Router {
  const router = Router();
  const route = declareRoutes(router, deps, requirePermission);

  route.post('/ingest/rrc-scrape', {
    permission: INGEST,
    body: RrcScrapeBody,
    command: ({ context, body }) => runRrcScrape(deps, context, body, deps.clock()),
  });

  // A custom body: the CSV arrives as a multipart upload streamed through busboy.
  router.post('/ingest/operator/csv', async (req, res) => {
    requirePermission(req, INGEST, deps);
    const context = commandContext(req);
    res.json(await withCsvUpload(req, res, (file) => importOperatorCsv(deps, context, file)));
  });

  route.post('/ingest/scada', {
    permission: INGEST,
    body: ScadaBody,
    command: ({ context, body }) => recordScadaReadings(deps, context, body),
  });

  route.get('/ingest/imports', {
    permission: INGEST,
    query: ImportListQuery,
    read: ({ identity, query }) => listImports(deps.knex, identity.tenantId, query),
  });

  route.get('/ingest/imports/:id', {
    permission: INGEST,
    params: ImportIdParams,
    read: ({ identity, params }) => findImport(deps.knex, identity.tenantId, params.id),
    notFound: 'import not found',
  });

  return router;
}

/** `POST /extract` exists only on the internal listener, with the same roles. */
export function createExtractionApi(deps: PlatformDeps): Router {
  const router = Router();
  declareRoutes(router, deps, requirePermission).post('/extract', {
    permission: INGEST,
    body: ExtractBody,
    command: ({ context, body }) => extractFromText(deps, context, body.text),
  });
  return router;
}
