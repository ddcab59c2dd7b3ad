import { NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import { countTokens } from '../../src/platform/infra/tokens';
import { renderTemplate, RenderFailed } from '../../streams/prompts/template-engine';
import { TemplateSyntaxError } from '../../streams/prompts/template-syntax';
import { resolveServeable, type ResolveDeps } from './resolve-prompt';

export interface Caller {
  tenantId: string;
  userId: string | null;
  roles: readonly string[];
}

/** GET /prompts/resolve/{ns}:{slug}: 404 when no template or no serveable version exists. */
export async function resolveForCaller(deps: ResolveDeps, caller: Caller, ref: string) {
  const version = await resolveServeable(deps, { ...caller, ref });
  if (!version) throw new NotFound(`No active prompt for ${ref}`);
  return {
    version_id: version.versionId,
    version_number: version.versionNumber,
    body: version.body,
    variables_expected: version.variablesExpected,
    status: version.status,
    token_estimate: version.tokenEstimate,
  };
}

/**
 * POST /prompts/render/{ns}:{slug}: the caller's version rendered in the sandbox. Variables
 * the template does not read, and variables it reads but were not given, are 422 naming them.
 */
export async function renderForCaller(
  deps: ResolveDeps,
  caller: Caller,
  ref: string,
  variables: Record<string, unknown>,
) {
  const version = await resolveServeable(deps, { ...caller, ref });
  if (!version) throw new NotFound(`No active prompt for ${ref}`);
  const given = Object.keys(variables);
  const unknown = given.filter((name) => !version.variablesExpected.includes(name));
  const missing = version.variablesExpected.filter((name) => !given.includes(name));
  const issues = [
    ...unknown.map((name) => ({
      loc: ['body', 'variables', name],
      msg: `unknown variable ${name}: the template does not use it`,
      type: 'unknown_variable',
    })),
    ...missing.map((name) => ({
      loc: ['body', 'variables', name],
      msg: `missing variable ${name}: the template uses it`,
      type: 'missing_variable',
    })),
  ];
  if (issues.length > 0) throw new ValidationFailed(issues, { unknown_variables: unknown, missing_variables: missing });
  let rendered: string;
  try {
    rendered = renderTemplate(version.body, variables);
  } catch (error) {
    if (error instanceof RenderFailed || error instanceof TemplateSyntaxError)
      throw new ValidationFailed([
        { loc: ['body', 'variables'], msg: `render failed: ${error.message}`, type: 'render_failed' },
      ]);
    throw error;
  }
  return {
    rendered,
    token_count: countTokens(rendered),
    version_id: version.versionId,
    version_number: version.versionNumber,
    source: version.status,
  };
}
