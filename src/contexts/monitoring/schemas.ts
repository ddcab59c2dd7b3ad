import { z } from 'zod';
import { EVENT_TYPE_STATUSES } from '../../../streams/monitoring/event-type';

export const ID = z.string().min(1).max(128);

export const DATETIME = z
  .string()
  .max(40)
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a time zone' });

/** Request schemas of the monitoring routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const TypeParams = z.object({ id: ID });

export const FieldParams = z.object({ id: ID, fid: ID });

export const RuleParams = z.object({ id: ID, rid: ID });

export const TypeListQuery = z.object({
  status: z.enum(EVENT_TYPE_STATUSES).optional(),
  category: z.string().max(100).optional(),
});

export const EventListQuery = z.object({
  entity_id: z.string().min(1).max(200).optional(),
  event_type_id: ID.optional(),
  from_date: DATETIME.optional(),
  to_date: DATETIME.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const EventQuery = z.object({ history: z.enum(['true', 'false']).default('false') });

export const CorrelateBody = z
  .object({
    window_hours: z
      .number()
      .positive()
      .max(24 * 366)
      .default(24),
    include_neighbors: z.boolean().default(true),
    event_type_ids: z.array(ID).max(100).optional(),
    limit: z.number().int().min(1).max(500).default(100),
  })
  .strict();

export const RuleIdParams = z.object({ id: ID });

export const TenantQuery = z.object({ tenant_id: z.string().min(1).max(128).optional() });
