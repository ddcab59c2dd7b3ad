/**
 * Thinking modes in ascending order of cost. A tenant's `max_thinking_mode` is a ceiling:
 * a turn may ask for a mode at or below it; a higher or unknown value is clamped to the
 * ceiling, never rejected.
 */
export const THINKING_MODES = ['disabled', 'adaptive'] as const;
export type ThinkingMode = (typeof THINKING_MODES)[number];

export function isThinkingMode(value: unknown): value is ThinkingMode {
  return typeof value === 'string' && (THINKING_MODES as readonly string[]).includes(value);
}

/** The mode a turn runs with, and whether the asked-for value had to be lowered or replaced. */
export function clampThinkingMode(requested: string, ceiling: ThinkingMode): { mode: ThinkingMode; clamped: boolean } {
  if (!isThinkingMode(requested)) return { mode: ceiling, clamped: true };
  if (THINKING_MODES.indexOf(requested) > THINKING_MODES.indexOf(ceiling)) return { mode: ceiling, clamped: true };
  return { mode: requested, clamped: false };
}
