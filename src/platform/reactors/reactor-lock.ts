/**
 * Reactor leadership is its own advisory lock (beside the projectors'): arbitrary but fixed,
 * every instance must agree on it. A separate key lets the two leaderships move independently.
 */
export const REACTOR_LOCK_KEY = 72_114_002;
