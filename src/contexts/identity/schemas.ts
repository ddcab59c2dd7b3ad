import { z } from 'zod';

/** Request schemas of the identity routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const UserIdParam = z.object({ id: z.string().uuid() });

export const InviteTokenParam = z.object({ token: z.string().min(1).max(512) });

export const ValidateQuery = z.object({ authorization: z.string().max(8192).optional() });
