import type { Request } from 'express';
import type { CommandContext } from '../command-handling/command-handler';
import { Invalid } from '../domain/errors';
import { requireIdentity } from './identity';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's `Idempotency-Key` header, checked; undefined when absent. */
export function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.get('idempotency-key');
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) throw new Invalid('Idempotency-Key must be 1 to 255 visible ASCII characters');
  return key;
}

/**
 * Who issues a command, from the stamped identity: tenant and actor, the request id as the
 * correlation id (so `ops audit replay --correlation` finds everything one request caused)
 * and the Idempotency-Key, from which the command's event ids and new resource ids derive.
 */
export function commandContext(req: Request, extra: Pick<CommandContext, 'metadata'> = {}): CommandContext {
  const { tenantId, userId } = requireIdentity(req);
  return { tenantId, actorId: userId, correlationId: req.id, idempotencyKey: idempotencyKeyOf(req), ...extra };
}
