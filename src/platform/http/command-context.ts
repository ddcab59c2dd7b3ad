import type { Request } from 'express';
import type { CommandContext } from '../command-handling/command-handler';
import { requireIdentity } from './identity';
import { currentScope } from './request-scope';

/**
 * Who issues a command, from the stamped identity: tenant and actor, and the request id as
 * the correlation id (so `ops audit replay --correlation` finds everything one request
 * caused). The Idempotency-Key reaches the handler through the request scope.
 */
export function commandContext(req: Request, extra: Pick<CommandContext, 'metadata'> = {}): CommandContext {
  const { tenantId, userId } = requireIdentity(req);
  return { tenantId, actorId: userId, correlationId: req.id, ...extra };
}

/** The request's Idempotency-Key (validated by the request scope), for commands built by hand. */
export function idempotencyKeyOf(_req: Request): string | undefined {
  return currentScope()?.idempotencyKey;
}
