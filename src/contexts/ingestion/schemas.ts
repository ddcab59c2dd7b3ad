import { z } from '../../platform/openapi/describe';
import { id } from '../../platform/http/bounded';
import { IMPORT_KINDS, IMPORT_STATUSES } from '../../../projections/ingestion/import-history';

/** GET /ingest/imports: the spec's list conventions (`limit` 1 to 200, `offset`), filtered by kind and status. */
export const ImportListQuery = z.object({
  kind: z.enum(IMPORT_KINDS).optional(),
  status: z.enum(IMPORT_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const ImportIdParams = z.object({ id: id() });
