import type { Request } from 'express';
import { type z, type ZodError, type ZodTypeAny } from 'zod';
import { type FieldIssue, ValidationFailed } from '../domain-errors';

export type RequestPart = 'body' | 'query' | 'path' | 'header';

/** zod issues in the spec's shape: `{loc: [part, field…], msg, type}`. */
export function issuesOf(error: ZodError, part: RequestPart): FieldIssue[] {
  return error.issues.map((issue) => ({
    loc: [part, ...issue.path],
    msg: issue.message,
    // A refinement may name its own error type: `ctx.addIssue({code: 'custom', params: {type: 'unknown_model'}})`.
    type: issue.code === 'custom' && typeof issue.params?.type === 'string' ? issue.params.type : issue.code,
  }));
}

export function parse<S extends ZodTypeAny>(schema: S, value: unknown, part: RequestPart): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationFailed(issuesOf(result.error, part));
  return result.data;
}

export const parseBody = <S extends ZodTypeAny>(req: Request, schema: S): z.infer<S> =>
  parse(schema, req.body ?? {}, 'body');
export const parseQuery = <S extends ZodTypeAny>(req: Request, schema: S): z.infer<S> =>
  parse(schema, req.query, 'query');
export const parseParams = <S extends ZodTypeAny>(req: Request, schema: S): z.infer<S> =>
  parse(schema, req.params, 'path');
