import { normalizePath } from './public-paths';

/**
 * The gateway's role gates. Only the admin gate's message is given by the
 * spec; the others name the roles that pass (docs/identity.md).
 */
export interface RoleGate {
  roles: readonly string[];
  message: string;
}

const ADMIN: RoleGate = { roles: ['admin'], message: 'admin role required' };
const POWER: RoleGate = { roles: ['power_user', 'admin'], message: 'power_user or admin role required' };
const REVIEWER: RoleGate = { roles: ['reviewer', 'admin'], message: 'reviewer or admin role required' };

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const CONFIGURATION_TYPES = /^\/(entity-types|relationship-types|relationship-rules|event-types)(\/.*)?$/;

export function roleGateFor(method: string, path: string): RoleGate | null {
  const p = normalizePath(path);
  const verb = method.toUpperCase();
  if (/^\/admin(\/.*)?$/.test(p)) return ADMIN;
  if (/^\/detection-rules(\/.*)?$/.test(p)) return POWER;
  if (/^\/ingest(\/.*)?$/.test(p)) return POWER;
  if (WRITES.has(verb) && CONFIGURATION_TYPES.test(p)) return POWER;
  if (verb === 'POST' && /^\/approvals\/[^/]+\/decide$/.test(p)) return REVIEWER;
  return null;
}

export function passesGate(gate: RoleGate, roles: readonly string[]): boolean {
  return gate.roles.some((role) => roles.includes(role));
}
