import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from './describe';

/**
 * Checks responses against an OpenAPI 3.1 document with ajv: the operation is
 * found by method and path (literal segments beat parameters), the status must be
 * documented, and a JSON body must match its schema.
 */
export interface ContractCheck {
  /** null when the response conforms; else why not. `undescribed` when no operation matches. */
  check(
    method: string,
    path: string,
    status: number,
    contentType: string,
    body: unknown,
  ): { ok: true } | { ok: false; undescribed: boolean; reason: string };
}

interface Operation {
  method: string;
  template: string;
  regex: RegExp;
  literals: number;
  pointer: string;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function contractOf(document: OpenApiDocument): ContractCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document as object, 'contract');
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    for (const method of Object.keys(item as object)) {
      const segments = template.split('/');
      const regex = new RegExp(
        '^' +
          segments.map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/') +
          '/?$',
        'i',
      );
      operations.push({
        method,
        template,
        regex,
        literals: segments.filter((s) => !/^\{.+\}$/.test(s)).length,
        pointer: `contract#/paths/${escapePointer(template)}/${method}`,
      });
    }
  }
  operations.sort((a, b) => b.literals - a.literals);
  const compiled = new Map<string, ValidateFunction>();

  return {
    check(method, rawPath, status, contentType, body) {
      const path = rawPath.split('?')[0];
      const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
      const op = operations.find((o) => o.method === verb && o.regex.test(path));
      const where = `${method.toUpperCase()} ${path} → ${status}`;
      if (!op) return { ok: false, undescribed: true, reason: `${where}: no operation in the OpenAPI document` };
      const responses = (
        document.paths as Record<
          string,
          Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
        >
      )[op.template][op.method].responses;
      const key = responses[String(status)] ? String(status) : responses.default ? 'default' : null;
      if (!key)
        return {
          ok: false,
          undescribed: false,
          reason: `${where}: status ${status} is not documented for ${op.method.toUpperCase()} ${op.template} (documented: ${Object.keys(responses).join(', ')})`,
        };
      const content = responses[key].content ?? {};
      const types = Object.keys(content);
      if (types.length === 0) return { ok: true };
      const media = contentType.split(';')[0].trim().toLowerCase();
      if (types.includes('*/*')) return { ok: true };
      if (!types.includes(media))
        return {
          ok: false,
          undescribed: false,
          reason: `${where}: content-type '${media}' not documented (documented: ${types.join(', ')})`,
        };
      if (media !== 'application/json') return { ok: true };
      const ref = `${op.pointer}/responses/${escapePointer(key)}/content/${escapePointer(media)}/schema`;
      let validate = compiled.get(ref);
      if (!validate) {
        validate = ajv.compile({ $ref: ref });
        compiled.set(ref, validate);
      }
      if (validate(body)) return { ok: true };
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '(body)'} ${e.message}`)
        .join('; ');
      return {
        ok: false,
        undescribed: false,
        reason: `${where}: body does not match the document (${op.method.toUpperCase()} ${op.template}): ${errors}; body: ${JSON.stringify(body).slice(0, 400)}`,
      };
    },
  };
}
