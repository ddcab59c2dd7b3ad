import { hash, randomUUID } from 'node:crypto';
import { currentScope, nextInScope, noteMinted } from '../http/request-scope';

/**
 * A uuid that is a pure function of its parts (RFC 9562 version 8 layout over SHA-256), so
 * a retried request with the same Idempotency-Key derives the same resource and event ids
 * and the store's unique event id turns the retry into a no-op.
 */
export function derivedUuid(...parts: string[]): string {
  // The one-shot hash: ~3× cheaper than a Hash object, and an import derives ids by the hundred thousand.
  const hex = hash('sha256', parts.join('\u001f'), 'hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A new resource id (`scope` names its kind, e.g. `graph.vertex`): derived from the request's
 * Idempotency-Key and tenant when the request has a key, random otherwise.
 */
export function newId(owner: string | { tenantId: string; idempotencyKey?: string }, scope: string): string {
  const tenantId = typeof owner === 'string' ? owner : owner.tenantId;
  const key = (typeof owner === 'string' ? undefined : owner.idempotencyKey) ?? currentScope()?.idempotencyKey;
  if (!key) {
    const id = randomUUID();
    noteMinted(id);
    return id;
  }
  return derivedUuid('id', tenantId, key, scope, String(nextInScope(`id:${scope}`)));
}

/** The idempotency key in force for a command: the one it names, else the request's. */
export function idempotencyKeyFor(explicit: string | undefined): string | undefined {
  return explicit ?? currentScope()?.idempotencyKey;
}
