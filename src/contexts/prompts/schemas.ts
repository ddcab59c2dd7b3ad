import { z } from 'zod';

/** Request schemas of the prompts routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const Id = z.object({ id: z.string().uuid() });

export const TierParams = z.object({ id: z.string().uuid(), tid: z.string().uuid() });

export const RefParams = z.object({ ref: z.string().min(3).max(130) });

export const TemplatesQuery = z.object({ namespace_id: z.string().uuid().optional() });

export const AuditQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100), before: z.string().uuid().optional() });

export const VerifyQuery = z.object({ template_id: z.string().uuid().optional() });

export const RenderBody = z.object({ variables: z.record(z.unknown()).default({}), user_id: z.string().min(1).max(128).optional() }).strict();

export const UserQuery = z.object({ user_id: z.string().min(1).max(128).optional() });
