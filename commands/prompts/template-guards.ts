import { NotFound } from '../../src/platform/domain-errors';
import type { LiveTemplate, TemplateState, VersionSummary } from '../../streams/prompts/template';

/** Guards shared by the template stream's deciders: a deleted or unknown template is 404. */
export function liveTemplate(state: TemplateState): LiveTemplate {
  if (state.status !== 'live') throw new NotFound('Prompt template not found');
  return state;
}

export function versionIn(state: LiveTemplate, versionId: string): VersionSummary {
  const version = state.versions[versionId];
  if (!version) throw new NotFound('Prompt version not found');
  return version;
}
