import type { Request } from 'express';
import type { Config } from '../../platform/config';
import { Forbidden } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';

/**
 * Fine-grained permission checks in handlers, from the gateway-stamped
 * X-Permissions. With SVC_AUTH_MODE=log a miss is only logged (rollout mode), except for
 * connector permissions and the identity-administration ones: a log-only miss
 * there would let anyone create accounts or grant themselves admin.
 */
export const ALWAYS_ENFORCED: readonly string[] = [
  'connectors.manage',
  'exposures.propose',
  'exposures.approve',
  'users.manage',
  'roles.grant',
];

export function requirePermission(req: Request, permission: string, deps: { config: Pick<Config, 'authMode'> }): void {
  const identity = requireIdentity(req);
  if (identity.permissions.includes(permission)) return;
  const alwaysEnforced = ALWAYS_ENFORCED.includes(permission) || permission.startsWith('exposures.');
  if (deps.config.authMode === 'log' && !alwaysEnforced) {
    req.log?.warn({ permission, userId: identity.userId }, 'permission check failed (SVC_AUTH_MODE=log: allowed)');
    return;
  }
  throw new Forbidden('Insufficient permissions');
}
