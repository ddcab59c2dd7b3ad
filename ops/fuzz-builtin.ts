import type { OpenApiDocument } from '../src/platform/openapi/describe';
import { contractOf } from '../src/platform/openapi/contract';

/**
 * The fallback engine of `npm run fuzz` for machines where schemathesis cannot be installed:
 * for every operation of the document, `examples` requests with parameters and bodies
 * generated from the document's own schemas (about a third deliberately invalid: a required
 * field dropped, a wrong type, an oversized string), then the same checks as schemathesis's
 * not_a_server_error + status/content-type/response-schema conformance, with the ajv check the
 * integration tests use. Deterministic for a given seed.
 */
type Schema = Record<string, any>;

export interface BuiltinFuzzOptions {
  baseUrl: string;
  token: string;
  examples: number;
  seed: number;
  exclude: string[];
  timeoutMs?: number;
}

export interface BuiltinFuzzResult {
  operations: number;
  requests: number;
  byStatus: Record<string, number>;
  failures: string[];
}

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

export function generator(document: OpenApiDocument, random: () => number) {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const int = (min: number, max: number) => Math.floor(min + random() * (max - min + 1));
  const resolve = (schema: Schema): Schema => {
    if (!schema?.$ref) return schema ?? {};
    const path = String(schema.$ref)
      .replace(/^#\//, '')
      .split('/')
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    return resolve(path.reduce((node: any, key) => node?.[key], document) ?? {});
  };
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(0, 15)]).join('');
  const text = (min = 0, max = 12) => {
    const length = int(Math.max(min, 0), Math.max(Math.min(max, min + 16), min));
    return Array.from({ length }, () => pick([...'abcdefghijklmnopqrstuvwxyz0123456789_-', 'é', ' ', 'Ω'])).join('');
  };

  function valid(input: Schema, depth = 0): unknown {
    const schema = resolve(input);
    if ('const' in schema) return schema.const;
    if (schema.enum) return pick(schema.enum);
    if (schema.anyOf || schema.oneOf) return valid(pick(schema.anyOf ?? schema.oneOf), depth);
    if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: Schema) => valid(s, depth)));
    const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return random() < 0.5;
      case 'integer':
      case 'number': {
        const min =
          schema.minimum ??
          (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : random() < 0.2 ? -1000 : 0);
        const max =
          schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : min + 1000);
        const value = type === 'integer' ? int(Math.ceil(min), Math.floor(max)) : min + random() * (max - min);
        return value;
      }
      case 'string': {
        if (schema.format === 'uuid') return `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
        if (schema.format === 'email') return `${text(1, 8) || 'x'}@example.com`.replace(/[ éΩ]/g, 'x');
        if (schema.format === 'date-time') return new Date(Date.now() - int(0, 1e10)).toISOString();
        if (schema.format === 'binary') return text(1, 40);
        return text(schema.minLength ?? 0, schema.maxLength ?? 24);
      }
      case 'array': {
        if (depth > 4) return [];
        const count = int(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, (schema.minItems ?? 0) + 3));
        return Array.from({ length: count }, () => valid(schema.items ?? {}, depth + 1));
      }
      case 'object':
      default: {
        if (!schema.properties && !schema.additionalProperties && type !== 'object')
          return pick([text(), int(0, 10), true, null]);
        const out: Record<string, unknown> = {};
        if (depth > 4) return out;
        const required = new Set<string>(schema.required ?? []);
        for (const [key, property] of Object.entries<Schema>(schema.properties ?? {})) {
          if (required.has(key) || random() < 0.5) out[key] = valid(property, depth + 1);
        }
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object' && !schema.properties) {
          for (let i = int(0, 2); i > 0; i--) out[text(1, 8) || 'k'] = valid(schema.additionalProperties, depth + 1);
        }
        return out;
      }
    }
  }

  /** A value the schema should refuse (or at least one that probes the edges). */
  function invalid(input: Schema): unknown {
    const schema = resolve(input);
    const value = valid(schema);
    const roll = random();
    if (value && typeof value === 'object' && !Array.isArray(value) && roll < 0.4) {
      const copy = { ...(value as Record<string, unknown>) };
      const keys = Object.keys(copy);
      if (keys.length) {
        const key = pick(keys);
        if (random() < 0.5) delete copy[key];
        else copy[key] = pick([12345, 'x'.repeat(int(300, 5000)), [], { nested: true }, null, -1, '']);
      } else copy[text(1, 6) || 'x'] = 'unexpected';
      return copy;
    }
    return pick([null, 'x'.repeat(int(200, 3000)), -99999, [], {}, '', '../../etc/passwd', '%00', '😀'.repeat(5)]);
  }

  return { valid, invalid, resolve };
}

export async function builtinFuzz(document: OpenApiDocument, options: BuiltinFuzzOptions): Promise<BuiltinFuzzResult> {
  const random = rng(options.seed);
  const gen = generator(document, random);
  const contract = contractOf(document);
  const result: BuiltinFuzzResult = { operations: 0, requests: 0, byStatus: {}, failures: [] };
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    if (options.exclude.includes(template)) continue;
    for (const [method, op] of Object.entries<any>(item as object)) {
      if (op.security?.length === 0 && /\/docs$/.test(template)) continue;
      result.operations++;
      for (let i = 0; i < options.examples; i++) {
        const broken = random() < 0.33;
        const value = (schema: Schema) => (broken && random() < 0.5 ? gen.invalid(schema) : gen.valid(schema));
        let path = template;
        const query = new URLSearchParams();
        const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
        for (const parameter of op.parameters ?? []) {
          const raw = value(parameter.schema ?? {});
          const text =
            raw === null || raw === undefined ? '' : typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
          if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(text || 'x'));
          else if (parameter.in === 'query' && (parameter.required || random() < 0.6)) query.set(parameter.name, text);
          else if (parameter.in === 'header' && (parameter.required || random() < 0.6))
            headers[parameter.name] = text.replace(/[^\x20-\x7e]/g, '');
        }
        let body: BodyInit | undefined;
        const content = op.requestBody?.content ?? {};
        if (content['application/json']) {
          headers['content-type'] = 'application/json';
          body =
            broken && random() < 0.15 ? '{"truncated": ' : JSON.stringify(value(content['application/json'].schema));
        } else if (content['multipart/form-data']) {
          const form = new FormData();
          form.set(
            'file',
            new Blob([String(gen.valid({ type: 'string', maxLength: 200 }))], { type: 'text/plain' }),
            'fuzz.txt',
          );
          body = form;
        }
        const url = `${options.baseUrl}${path}${query.size ? `?${query}` : ''}`;
        const where = `${method.toUpperCase()} ${path}${query.size ? `?${query}` : ''}`;
        result.requests++;
        let response: Response;
        try {
          response = await fetch(url, {
            method: method.toUpperCase(),
            headers,
            body,
            signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
          });
        } catch (error) {
          result.failures.push(`${where}: no response (${(error as Error).name}: ${(error as Error).message})`);
          continue;
        }
        const type = response.headers.get('content-type') ?? '';
        const textBody = await response.text();
        let parsed: unknown = textBody;
        if (type.includes('json') && textBody) {
          try {
            parsed = JSON.parse(textBody);
          } catch {
            result.failures.push(`${where} → ${response.status}: invalid JSON body`);
            continue;
          }
        }
        result.byStatus[response.status] = (result.byStatus[response.status] ?? 0) + 1;
        if (response.status >= 500 && response.status !== 503)
          result.failures.push(`${where} → ${response.status}: server error ${textBody.slice(0, 200)}`);
        const verdict = contract.check(method, path, response.status, type, parsed);
        if (!verdict.ok) result.failures.push(verdict.reason);
      }
    }
  }
  return result;
}
