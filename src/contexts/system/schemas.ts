import { z } from 'zod';

/** A dead letter's id: the table's bigint key, as a decimal string. */
export const DeadLetterParams = z.object({
  id: z
    .string()
    .max(19)
    .regex(/^[1-9][0-9]{0,18}$/, 'a dead letter id'),
});

export const DeadLettersQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });

/** A scheduled message: its tenant and its id (ids are chosen by the scheduler: `<what>-<when>`). */
export const ScheduledParams = z.object({
  tenant_id: z.string().min(1).max(100),
  message_id: z.string().min(1).max(300),
});
