/**
 * Bounds on what the platform SENDS. A request schema is bounded by its zod
 * check (src/platform/http/bounded.ts); a response schema only describes, so where a context
 * gives no tighter bound the document states the ceilings every response already lives under:
 * a body is one string built by `JSON.stringify`, and V8 (Node 20) cannot build a string past
 * 2^29 − 24 characters. No string in a body is longer; no list holds more than half as many
 * items (each takes a character and a comma at least); an integer is a JavaScript number, so
 * within ±(2^53 − 1) to stay exact (int64). A context that knows better (page sizes, ids,
 * timestamps) says so in its own zod schema, and that bound is kept.
 *
 * Schemas reached from a request (parameters, request bodies) are left alone, on purpose: an
 * input must be bounded by its check, so the lint still fails on an unchecked one.
 */
export const OUTPUT_CEILINGS = {
  /** V8's longest string (`v8::String::kMaxLength` on 64-bit), in UTF-16 code units. */
  textLength: 2 ** 29 - 24,
  /** Items of a list inside a body of at most `textLength` characters. */
  items: 2 ** 28,
  /** The exact integers of a JavaScript number. */
  integer: Number.MAX_SAFE_INTEGER,
} as const;

type Schema = Record<string, unknown>;
type Document = { paths?: object; components?: { schemas?: object } };

const REF = '#/components/schemas/';

const hasType = (schema: Schema, type: string) =>
  schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));

/** Fills in the ceilings where a response schema states no bound of its own. */
function bound(schema: Schema): void {
  if (
    hasType(schema, 'string') &&
    schema.maxLength === undefined &&
    schema.enum === undefined &&
    schema.const === undefined
  )
    schema.maxLength = OUTPUT_CEILINGS.textLength;
  if (hasType(schema, 'array') && schema.maxItems === undefined) schema.maxItems = OUTPUT_CEILINGS.items;
  if (hasType(schema, 'integer')) {
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined)
      schema.minimum = -OUTPUT_CEILINGS.integer;
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = OUTPUT_CEILINGS.integer;
    schema.format ??= 'int64';
  }
}

/** Every component a node refers to, directly or through other components. */
function referenced(node: unknown, components: Record<string, Schema>, into: Set<string>): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => referenced(item, components, into));
  else if (node && typeof node === 'object') {
    const ref = (node as Schema).$ref;
    if (typeof ref === 'string' && ref.startsWith(REF)) {
      const name = ref.slice(REF.length);
      if (!into.has(name)) {
        into.add(name);
        referenced(components[name], components, into);
      }
    }
    for (const value of Object.values(node)) referenced(value, components, into);
  }
  return into;
}

function walk(node: unknown, visit: (schema: Schema) => void): void {
  if (Array.isArray(node)) return node.forEach((item) => walk(item, visit));
  if (!node || typeof node !== 'object') return;
  visit(node as Schema);
  for (const value of Object.values(node)) walk(value, visit);
}

const operationsOf = (document: Document) =>
  Object.values(document.paths ?? {}).flatMap((item) =>
    Object.values(
      item as Record<
        string,
        {
          parameters?: unknown;
          requestBody?: unknown;
          responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
        }
      >,
    ),
  );

/** Writes the output ceilings into every response schema of the document (see above). */
export function outputBounds(document: Document): void {
  const components = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const operations = operationsOf(document);
  const inputs = new Set<string>();
  for (const operation of operations) referenced([operation.parameters, operation.requestBody], components, inputs);
  const outputs = new Set<string>();
  for (const operation of operations) {
    for (const response of Object.values(operation.responses ?? {})) {
      for (const media of Object.values(response.content ?? {})) {
        // Inline schemas stop at a $ref: the component is bounded once, below, if no request uses it.
        walk(media.schema, bound);
        referenced(media.schema, components, outputs);
      }
    }
  }
  for (const name of outputs) if (!inputs.has(name)) walk(components[name], bound);
}
