import { z } from 'zod';
import { boundedRecord, LIMITS } from '../../platform/http/bounded';

/** Request schemas of the prompts routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const Id = z.object({ id: z.string().uuid() });

export const TierParams = z.object({ id: z.string().uuid(), tid: z.string().uuid() });

export const RefParams = z.object({ ref: z.string().min(3).max(130) });

/**
 * The same path segment as the contract writes it (`{ns}:{slug}`): the router takes
 * the segment whole (`:ref`) and splits it, the document names its two halves.
 */
export const RefPathParams = z.object({
  ns: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z0-9_-]{0,63}$/)
    .describe('Namespace name'),
  slug: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z0-9_-]{0,63}$/)
    .describe('Template slug'),
});

export const TemplatesQuery = z.object({ namespace_id: z.string().uuid().optional() });

export const AuditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  before: z.string().uuid().optional(),
});

export const VerifyQuery = z.object({ template_id: z.string().uuid().optional() });

// Variables may carry a document whole (a filing, a report): up to a document's length in all.
export const RenderBody = z
  .object({
    variables: boundedRecord(z.unknown(), { bytes: LIMITS.documentText }).default({}),
    user_id: z.string().min(1).max(128).optional(),
  })
  .strict();

export const UserQuery = z.object({ user_id: z.string().min(1).max(128).optional() });
