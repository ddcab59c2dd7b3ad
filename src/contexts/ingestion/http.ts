import { Router } from 'express';
import { ExtractBody, extractFromText } from '../../../commands/ingestion/extract-from-text';
import { importOperatorCsv } from '../../../commands/ingestion/import-operator-csv';
import { recordScadaReadings, ScadaBody } from '../../../commands/ingestion/record-scada-readings';
import { RrcScrapeBody, runRrcScrape } from '../../../commands/ingestion/run-rrc-scrape';
import type { PlatformDeps } from '../../platform/context-module';
import { commandContext } from '../../platform/http/command-context';
import { NotFound } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { findImport, listImports } from '../../../queries/ingestion/import-history';
import { ImportIdParams, ImportListQuery } from './schemas';
import { withCsvUpload } from './csv-upload';
import { requirePermission } from '../identity';

/** Ingestion: RRC scrape simulator, operator CSV, SCADA readings, entity extraction. */
export function createIngestionApi(deps: PlatformDeps): Router {
  const router = Router();

  router.post('/ingest/rrc-scrape', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const body = parseBody(req, RrcScrapeBody);
    res.json(await runRrcScrape(deps, commandContext(req), body, deps.clock()));
  });

  router.post('/ingest/operator/csv', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const context = commandContext(req);
    res.json(await withCsvUpload(req, res, (file) => importOperatorCsv(deps, context, file)));
  });

  router.post('/ingest/scada', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const body = parseBody(req, ScadaBody);
    res.json(await recordScadaReadings(deps, commandContext(req), body));
  });

  router.get('/ingest/imports', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const { tenantId } = requireIdentity(req);
    res.json(await listImports(deps.knex, tenantId, parseQuery(req, ImportListQuery)));
  });

  router.get('/ingest/imports/:id', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, ImportIdParams);
    const found = await findImport(deps.knex, tenantId, id);
    if (!found) throw new NotFound('import not found');
    res.json(found);
  });

  return router;
}

/** `POST /extract` exists only on the internal listener, with the same roles. */
export function createExtractionApi(deps: PlatformDeps): Router {
  const router = Router();
  router.post('/extract', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const { text } = parseBody(req, ExtractBody);
    res.json(await extractFromText(deps, commandContext(req), text));
  });
  return router;
}
