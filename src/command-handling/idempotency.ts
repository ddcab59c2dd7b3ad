import { createHash, randomUUID } from 'node:crypto';

/**
 * A uuid that is a pure function of its parts (RFC 9562 version 8 layout over SHA-256), so
 * a retried request with the same Idempotency-Key derives the same resource and event ids
 * and the store's unique event id turns the retry into a no-op.
 */
export function derivedUuid(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u001f')).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A new id: derived from the idempotency key when the request has one, random otherwise. */
export function newId(idempotency: { tenantId: string; idempotencyKey?: string } | undefined, scope: string): string {
  return idempotency?.idempotencyKey ? derivedUuid('id', idempotency.tenantId, idempotency.idempotencyKey, scope) : randomUUID();
}
