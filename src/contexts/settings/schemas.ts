import { z } from 'zod';
import { AUDIT_ACTIONS } from '../../../streams/settings/fields';

/** Request schemas of the settings routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const UserIdParams = z.object({ user_id: z.string().uuid() });

export const AuditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  action: z.enum([AUDIT_ACTIONS.update, AUDIT_ACTIONS.overrideUpsert, AUDIT_ACTIONS.overrideDelete]).optional(),
  before: z.string().uuid().optional(),
});
