import { z } from 'zod';
import { boundedRecord } from '../../platform/http/bounded';
import { ENGINES } from '../../../streams/connectors/connector';

/** Request schemas of the connectors routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const KeyParams = z.object({ key: z.string().min(1).max(64) });

export const ExposureParams = KeyParams.extend({ ekey: z.string().min(1).max(64) });

export const StatusQuery = z.object({
  status: z.enum(['draft', 'pending_review', 'approved', 'rejected', 'retired']).optional(),
});

export const ValidateInput = z
  .object({
    sql: z.string().max(100_000),
    engine: z.enum(ENGINES).optional(),
    connector_key: z.string().max(64).optional(),
  })
  .strict();

export const RunInput = z.object({ params: boundedRecord(z.unknown()).default({}) }).strict();
