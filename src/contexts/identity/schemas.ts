import { z } from 'zod';

/** Request schemas of the identity routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const UserIdParam = z.object({ id: z.string().uuid() });

export const InviteTokenParam = z.object({ token: z.string().min(1).max(512) });

export const ValidateQuery = z.object({ authorization: z.string().max(8192).optional() });

/** `ids`: comma-separated user ids, at most 100 (a page's worth of requesters, deciders, authors). */
export const PeopleQuery = z.object({
  ids: z
    .string()
    .max(100 * 40)
    .transform((v) => [
      ...new Set(
        v
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(z.string().max(200)).max(100)),
});
