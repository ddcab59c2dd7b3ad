import { z } from 'zod';

/** A budget tier: a named token ceiling for rendered prompts of the namespace's templates. */
export const BudgetTierBody = z
  .object({
    name: z.string().min(1).max(100),
    max_tokens: z.number().int().positive().max(2_000_000),
    description: z.string().max(2000).default(''),
  })
  .strict();
