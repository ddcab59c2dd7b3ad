import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { connectorRefusal, sqlHash } from './connector-refs';
import type { EngineKey, ExposureParameter } from '../../streams/connectors/connector';
import { validateSql } from '../../streams/connectors/sql-validator';

/**
 * An exposure's content as authors send it: the SQL must pass the shared validator for the
 * connector's engine and use exactly the parameters it declares; the tool name it will become
 * must fit the model providers' 64-character function-name rule.
 */
export const ParameterInput = z
  .object({
    name: z
      .string()
      .max(63)
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/),
    type: z.enum(['string', 'integer', 'number', 'boolean', 'date', 'timestamp']).default('string'),
    description: z.string().max(1000).default(''),
    required: z.boolean().default(true),
  })
  .strict();

export const ExposureContentInput = z.object({
  display_name: z.string().trim().max(200).optional(),
  description: z.string().max(4000).default(''),
  sql: z.string().min(1).max(100_000),
  parameters: z.array(ParameterInput).max(50).default([]),
  max_rows: z.number().int().min(1).max(100_000).nullable().default(null),
});

export const EKEY = z
  .string()
  .max(63)
  .regex(/^[a-z][a-z0-9_]{0,62}$/, 'a slug: lower-case letter, then letters, digits or _');

export interface ExposureContent {
  ekey: string;
  displayName: string;
  description: string;
  sql: string;
  sqlHash: string;
  parameters: ExposureParameter[];
  maxRows: number | null;
}

export async function checkedContent(
  engine: EngineKey,
  connectorKey: string,
  ekey: string,
  input: z.infer<typeof ExposureContentInput>,
): Promise<ExposureContent> {
  if (connectorKey.length + 2 + ekey.length > 64)
    throw connectorRefusal('ekey_too_long', {
      reason: `the tool name ${connectorKey}__${ekey} would exceed 64 characters`,
    });
  const validation = await validateSql(input.sql, engine);
  if (!validation.valid)
    throw connectorRefusal('sql_invalid', { reason: validation.errors[0].message, errors: validation.errors });
  const declared = input.parameters.map((p) => p.name);
  const undeclared = validation.parameters.filter((n) => !declared.includes(n));
  const unused = declared.filter((n) => !validation.parameters.includes(n));
  const duplicated = declared.filter((n, i) => declared.indexOf(n) !== i);
  if (undeclared.length || unused.length || duplicated.length) {
    throw connectorRefusal('parameters_mismatch', {
      reason: 'the declared parameters must be exactly those the SQL uses',
      undeclared,
      unused,
      duplicated,
    });
  }
  return {
    ekey,
    displayName: input.display_name ?? ekey,
    description: input.description,
    sql: input.sql,
    sqlHash: sqlHash(input.sql),
    parameters: input.parameters,
    maxRows: input.max_rows,
  };
}

/**
 * The arguments of an exposure run (and of its agent tool), validated before binding. One
 * schema object per declaration: the tools are built every turn, and the model-facing JSON
 * schema is converted once per schema object (zod schemas are immutable, so sharing is safe).
 */
export function parameterSchema(parameters: ExposureParameter[]) {
  const key = JSON.stringify(parameters);
  let schema = schemas.get(key);
  if (!schema) {
    schema = buildParameterSchema(parameters);
    schemas.set(key, schema);
  }
  return schema;
}

/** The declarations' schemas, the least recently used leaving first past 1,000. */
const schemas = new LRUCache<string, ReturnType<typeof buildParameterSchema>>({ max: 1000 });

function buildParameterSchema(parameters: ExposureParameter[]) {
  const shape: Record<string, z.ZodTypeAny> = {};
  for (const p of parameters) {
    const base = {
      string: z.string().max(10_000),
      integer: z.number().int(),
      number: z.number().finite(),
      boolean: z.boolean(),
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD'),
      timestamp: z.string().datetime({ offset: true }),
    }[p.type].describe(p.description || p.name);
    shape[p.name] = p.required ? base : base.nullable().optional();
  }
  return z.object(shape).strict();
}
