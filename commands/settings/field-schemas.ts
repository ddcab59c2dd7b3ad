import { z } from 'zod';
import { isModelId } from '../../src/platform/infra/llm/model-options';
import { THINKING_MODES } from '../../src/platform/infra/llm/thinking-mode';

/**
 * Value rules shared by the settings commands. Limits are sanity bounds, not business caps:
 * a per-execution budget of 0 would make every turn fail, so it is at least 1 token / a
 * positive cost; a daily cap of 0 is allowed and blocks usage for the day.
 */
export const modelId = z
  .string()
  .max(200)
  .superRefine((id, ctx) => {
    if (!isModelId(id)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${id}" is not a model id from /settings/model-options`,
        params: { type: 'unknown_model' },
      });
    }
  });

export const tokensPerExecution = z.number().int().min(1).max(100_000_000);
export const costPerExecution = z.number().positive().max(1_000_000);
export const tokensPerDay = z.number().int().min(0).max(1_000_000_000_000);
export const costPerDay = z.number().min(0).max(100_000_000);
export const thinkingMode = z.enum(THINKING_MODES);

/** An object schema that names each unknown field (a typo must not be silently ignored). */
export function exactObject<S extends z.ZodRawShape>(shape: S) {
  const known = new Set(Object.keys(shape));
  return z
    .object(shape)
    .passthrough()
    .superRefine((body, ctx) => {
      for (const key of Object.keys(body)) {
        if (!known.has(key))
          ctx.addIssue({ code: 'custom', path: [key], message: 'unknown field', params: { type: 'extra_forbidden' } });
      }
    })
    .transform((body) => {
      const kept: Record<string, unknown> = {};
      for (const key of known) if (key in body) kept[key] = (body as Record<string, unknown>)[key];
      return kept as z.infer<z.ZodObject<S>>;
    });
}
