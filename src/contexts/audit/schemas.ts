import { z } from 'zod';
import { parseCursor } from './timeline';

/** Entity keys every query string may carry; which of them answer depends on the registered catalogs. */
export const ENTITY_FLAGS = [
  'user',
  'well',
  'entity',
  'approval',
  'checklist',
  'conversation',
  'project',
  'prompt',
  'connector',
  'settings',
] as const;

const entityFields = Object.fromEntries(ENTITY_FLAGS.map((f) => [f, z.string().min(1).max(300).optional()])) as Record<
  (typeof ENTITY_FLAGS)[number],
  z.ZodOptional<z.ZodString>
>;

export const FilterQuery = z.object({
  ...entityFields,
  actor: z.string().min(1).max(320).optional(),
  correlation: z.string().min(1).max(200).optional(),
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
});

/** Request schemas of the audit routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const EventsQuery = FilterQuery.extend({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z
    .string()
    .max(512)
    .refine((c) => parseCursor(c) !== null, 'must be a next_cursor this endpoint returned')
    .optional(),
});

export const ExportQuery = FilterQuery.extend({ format: z.enum(['json', 'csv', 'xlsx']).default('xlsx') });
