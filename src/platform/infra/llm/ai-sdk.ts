import type { ZodTypeAny } from 'zod';

let sdk: typeof import('ai') | null = null;

/**
 * The AI SDK, loaded with the first model call rather than at boot (most processes only ever
 * run the builtin models), and resolved once: a `require` per call re-resolves the module's
 * path, a file-system stat each time.
 */
export function aiSdk(): typeof import('ai') {
  return (sdk ??= require('ai') as typeof import('ai'));
}

const schemas = new WeakMap<ZodTypeAny, Record<string, unknown>>();

/** A tool's arguments schema as the JSON Schema a model is sent, converted once per schema. */
export function toolInputSchema(parameters: ZodTypeAny): Record<string, unknown> {
  let schema = schemas.get(parameters);
  if (!schema) schemas.set(parameters, (schema = aiSdk().zodSchema(parameters).jsonSchema as Record<string, unknown>));
  return schema;
}
