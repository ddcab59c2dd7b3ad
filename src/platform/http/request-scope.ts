import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';
import { Invalid } from '../domain-errors';

/**
 * What one request carries down to the command handler without every route passing it:
 * the client's `Idempotency-Key` and counters that keep derived ids distinct within the
 * request (the n-th new id of a kind, the n-th command on a stream). A retried request with
 * the same key walks the same path, so it derives the same ids and appends nothing new.
 */
export interface RequestScope {
  /** The request id: the correlation id of every event the request appends. */
  requestId?: string;
  idempotencyKey?: string;
  counters: Map<string, number>;
  /** Ids this request drew at random (no Idempotency-Key): no stream named after one can exist yet. */
  minted?: Set<string>;
}

const storage = new AsyncLocalStorage<RequestScope>();

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** The n-th use of `name` in this request (0, 1, 2…); always 0 outside a request. */
export function nextInScope(name: string): number {
  const scope = storage.getStore();
  if (!scope) return 0;
  const n = scope.counters.get(name) ?? 0;
  scope.counters.set(name, n + 1);
  return n;
}

/** Remembers an id drawn at random for a new resource of this request. */
export function noteMinted(id: string): void {
  const scope = storage.getStore();
  if (scope) (scope.minted ??= new Set()).add(id);
}

/**
 * Whether `stream` is named after an id this request drew at random and no command of the
 * request has used it yet (stream names end with their resource's id): its first command
 * has nothing to read. Later commands on it read as usual, since the first one wrote it.
 */
export function claimFreshStream(stream: string): boolean {
  const minted = storage.getStore()?.minted;
  if (!minted || minted.size === 0) return false;
  for (const id of minted) {
    if (!stream.endsWith(id) || stream.charAt(stream.length - id.length - 1) !== '-') continue;
    minted.delete(id);
    return true;
  }
  return false;
}

/** Runs the rest of the request inside its scope; a malformed key is a 400 before any work. */
export function requestScope(): RequestHandler {
  return (req, _res, next) => {
    const key = req.get('idempotency-key');
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      next(new Invalid('Idempotency-Key must be 1 to 255 visible ASCII characters'));
      return;
    }
    // Only writes are made idempotent; a GET with a key is just a GET.
    const idempotencyKey =
      req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH' || req.method === 'DELETE'
        ? key
        : undefined;
    storage.run({ requestId: req.id, idempotencyKey, counters: new Map() }, () => next());
  };
}

/** Runs `fn` inside a scope of its own (tests, CLI commands that want idempotent ids). */
export function withScope<T>(scope: { idempotencyKey?: string }, fn: () => T): T {
  return storage.run({ idempotencyKey: scope.idempotencyKey, counters: new Map() }, fn);
}
