/** What other contexts use of identity: the permission check on a route and the audit's user lookup. */
export { requirePermission } from './require-permission';
export { findUsers } from './audit';
