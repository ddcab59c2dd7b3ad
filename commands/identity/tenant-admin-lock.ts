/**
 * "The last active admin cannot be removed" spans every user of a tenant, which no single
 * stream holds. Changes that can remove an admin run one at a time per tenant on this
 * instance, so two admins cannot demote each other concurrently here (docs/identity.md
 * names the remaining cross-instance window).
 */
const queues = new Map<string, Promise<unknown>>();

export async function withTenantAdminLock<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(tenantId) ?? Promise.resolve();
  const run = previous.then(work, work);
  const tail = run.catch(() => undefined);
  queues.set(tenantId, tail);
  try {
    return await run;
  } finally {
    if (queues.get(tenantId) === tail) queues.delete(tenantId);
  }
}
