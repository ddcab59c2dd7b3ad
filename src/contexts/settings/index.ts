/** What other contexts use of settings: the settings an agent turn runs with. */
export { resolveEffectiveSettings } from './effective-settings';
export type { TurnSettings } from './effective-settings';
