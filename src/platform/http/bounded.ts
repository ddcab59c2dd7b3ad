import { z } from '../openapi/describe';
import { IDENTITY_HEADER_LIMITS } from './identity';

/**
 * Bounded input primitives: every string, integer, array and free-form object a
 * request carries has a limit a real user never meets and that keeps one request's cost
 * bounded. The OpenAPI document is generated from these schemas, so each bound is both the
 * check and its documentation (docs/http-api.md, "Input bounds").
 */
export const LIMITS = {
  /** Keys, slugs, names, labels, short codes. */
  shortText: 200,
  /** Descriptions, notes, reasons, one message. */
  longText: 20_000,
  /** Documents and templates pasted whole (prompt bodies, artifact text). */
  documentText: 1_000_000,
  /** Items of a list in one request. */
  items: 1_000,
  /** Properties of a free-form object (graph properties, metadata, payloads). */
  properties: 200,
  /** Serialized size of a free-form object. */
  recordBytes: 256 * 1024,
} as const;

/** An identity header of the internal listener (`X-Tenant-Id`, `X-User-Id`), bounded where it is checked (`boundedIdentityHeaders`). */
export const identityHeader = (name: 'x-tenant-id' | 'x-user-id') =>
  z.string().min(1).max(IDENTITY_HEADER_LIMITS[name]);

/** Platform ids (UUIDs): the format bounds the length. */
export const id = () => z.string().uuid().max(36);

/** A short single-line text: keys, names, labels. */
export const shortText = (max: number = LIMITS.shortText) => z.string().max(max);

/** A free text: descriptions, notes, one message. */
export const longText = (max: number = LIMITS.longText) => z.string().max(max);

/** A calendar date `YYYY-MM-DD`. */
export const isoDate = () => z.string().date().max(10);

/** An ISO 8601 instant with its offset. */
export const isoInstant = () => z.string().datetime({ offset: true }).max(40);

/** An integer within the bounds given (both required, so the range is documented and checked). */
export const boundedInt = (min: number, max: number) => z.number().int().min(min).max(max);

/** A list of at most `max` items. */
export const boundedArray = <T extends z.ZodTypeAny>(item: T, max: number = LIMITS.items) => z.array(item).max(max);

/**
 * A free-form object (graph properties, metadata, payloads): at most `properties` keys and
 * `bytes` of JSON in all, so a single value cannot carry a megabyte.
 */
export function boundedRecord<T extends z.ZodTypeAny>(value: T, options: { properties?: number; bytes?: number } = {}) {
  const properties = options.properties ?? LIMITS.properties;
  const bytes = options.bytes ?? LIMITS.recordBytes;
  return z
    .record(z.string().max(LIMITS.shortText), value)
    .openapi({
      maxProperties: properties,
      description: `A free-form object: at most ${properties} properties and ${Math.round(bytes / 1024)} KB of JSON.`,
    })
    .refine((record) => Object.keys(record).length <= properties, { message: `at most ${properties} properties` })
    .refine((record) => Buffer.byteLength(JSON.stringify(record)) <= bytes, {
      message: `at most ${Math.round(bytes / 1024)} KB in all`,
    });
}
