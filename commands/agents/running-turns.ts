import { performance } from 'node:perf_hooks';

/** The turns this process is running, by execution id, with when each started on its monotonic clock. */
const running = new Map<string, number>();

/** Marks a turn as running here until the returned function is called (when it has stored its end). */
export function runningHere(executionId: string): () => void {
  const startedAt = performance.now();
  running.set(executionId, startedAt);
  return () => {
    if (running.get(executionId) === startedAt) running.delete(executionId);
  };
}

/**
 * How long ago, on this process's monotonic clock, a turn it runs started;
 * undefined when it runs elsewhere or has ended.
 */
export function localTurnElapsedMs(executionId: string): number | undefined {
  const startedAt = running.get(executionId);
  return startedAt === undefined ? undefined : performance.now() - startedAt;
}
