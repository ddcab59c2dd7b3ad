/** What other contexts use of agents: running a turn as the assistant does (the evaluation's replay). */
export { complianceAssistant } from './assistant/compliance-assistant';
export { promptsSystemPrompt } from './system-prompt';
export { prepareTurn } from './turn-preparation';
export type { TurnEngine } from './turn-preparation';
export { runTurn } from './turn-runner';
