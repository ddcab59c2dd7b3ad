import { z } from 'zod';
import { APPROVAL_STATUSES } from '../../../streams/approvals/approval';

/** Request schemas of the approvals routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const ListQuery = z.object({
  status: z.enum(APPROVAL_STATUSES).optional(),
  agent_type: z.string().min(1).max(100).optional(),
  escalated: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  reviewer_id: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(20),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
});

export const IdParams = z.object({ id: z.string().min(1).max(200) });

export const TenantQuery = z.object({ tenant_id: z.string().min(1).max(128).optional() });
