import { z } from 'zod';

/** Request schemas of the evaluation routes, shared by http.ts (parsing) and openapi.ts (the contract). */
/**
 * Evaluation capture and runs. Captures are each user's own;
 * runs are the tenant's (recorded by `npm run ops -- eval run`, never by a route); promotion
 * needs `evals.manage`.
 */
export const CapturesQuery = z.object({ conversation_id: z.string().min(1).max(200) });

export const RunsQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) });

// Any other id is simply not found (404), like another tenant's.
export const RunParams = z.object({ id: z.string().min(1).max(200) });
