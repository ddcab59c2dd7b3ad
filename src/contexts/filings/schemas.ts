import { z } from 'zod';
import { FILING_STATUSES } from '../../../projections/filings/filings-read-model';

export const FilingListQuery = z.object({
  entity_id: z.string().min(1).max(200).optional(),
  /** A template id (`form_pr`) or the form's name (`PR`). */
  form: z.string().min(1).max(50).optional(),
  period: z
    .string()
    .max(7)
    .regex(/^\d{4}-\d{2}$/, 'a month, YYYY-MM')
    .optional(),
  status: z.enum(FILING_STATUSES).optional(),
  approval_id: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(20),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
});

export const FilingParams = z.object({ id: z.string().min(1).max(200) });
