import { z } from 'zod';
import { MATRIX_BUCKETS, MATRIX_STATUSES, SORT_COLUMNS } from '../../../queries/compliance/dashboard';

export const AsOf = z
  .string()
  .max(40)
  .regex(/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, 'an ISO 8601 timestamp')
  .refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO 8601 timestamp')
  .optional();

export const SortBy = z
  .string()
  .max(64)
  .default('entity_name')
  .refine((s) => (SORT_COLUMNS as readonly string[]).includes(s.replace(/^-/, '')), {
    message: `one of ${SORT_COLUMNS.join(', ')}, optionally prefixed with - for descending`,
  });

/** Request schemas of the compliance routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const SummaryQuery = z.object({ as_of: AsOf });

export const MatrixQuery = z.object({
  as_of: AsOf,
  entity_type: z.string().min(1).max(64).optional(),
  status: z.enum(MATRIX_STATUSES).optional(),
  bucket: z.enum(MATRIX_BUCKETS).optional(),
  search: z.string().max(200).optional(),
  sort_by: SortBy,
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
});

export const TrendQuery = z.object({ days: z.coerce.number().int().min(1).max(366).default(30) });

export const DeadlinesQuery = z.object({ weeks: z.coerce.number().int().min(1).max(52).default(12) });

export const FlaringQuery = z.object({ months: z.coerce.number().int().min(1).max(36).default(12) });

export const EntityParams = z.object({ entity_id: z.string().min(1).max(200) });
