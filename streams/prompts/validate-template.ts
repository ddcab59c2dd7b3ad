import type { Validation } from './template';
import { countTokens } from '../../src/platform/infra/tokens';
import { scanForInjection } from './injection-scan';
import { analyseTemplate } from './template-engine';
import { ValidationFailed } from '../../src/platform/domain-errors';
import type { Positioned } from './template-syntax';

/**
 * The validation result stored with every saved version. A body
 * with syntax errors is not stored at all (422 with line and column, see `assertSyntax`);
 * anything else is stored with its result, and only a `valid` version can be promoted or
 * rendered. `token_estimate` counts the template text itself with the real tokenizer.
 */
export function validateTemplate(
  body: string,
  options: { declaredVariables: string[] | null; maxTokens: number | null },
): Validation & { syntaxProblems: Positioned[] } {
  const analysis = analyseTemplate(body);
  const scan = scanForInjection(body);
  const tokenEstimate = countTokens(body);
  const declared = options.declaredVariables;
  const unknownVariables = declared ? analysis.variables.filter((v) => !declared.includes(v)) : [];
  const at = (p: { message: string; line: number; column: number }) =>
    p.line > 0 ? `line ${p.line}, column ${p.column}: ${p.message}` : p.message;
  const errors = [...analysis.syntaxErrors.map(at), ...analysis.subsetErrors.map(at)];
  if (scan.status === 'fail')
    errors.push(
      ...scan.findings
        .filter((f) => f.kind === 'hidden_unicode' || f.kind === 'exfiltration_url')
        .map((f) => `line ${f.line}, column ${f.column}: ${f.message}`),
    );
  const warnings: string[] = [];
  if (scan.status !== 'clean')
    warnings.push(
      ...scan.findings
        .filter((f) => f.kind === 'instruction_override' || f.kind === 'role_marker')
        .map((f) => `line ${f.line}, column ${f.column}: ${f.message}`),
    );
  if (unknownVariables.length > 0)
    warnings.push(`variables not declared on the template: ${unknownVariables.join(', ')}`);
  if (options.maxTokens !== null && tokenEstimate > options.maxTokens)
    warnings.push(`token estimate ${tokenEstimate} exceeds the budget tier's ${options.maxTokens}`);
  const syntaxOk = analysis.syntaxErrors.length === 0;
  const subsetOk = syntaxOk && analysis.subsetErrors.length === 0;
  return {
    syntaxProblems: analysis.syntaxErrors,
    valid: syntaxOk && subsetOk && scan.status !== 'fail',
    syntaxOk,
    subsetOk,
    injectionScan: scan,
    tokenEstimate,
    variablesExtracted: analysis.variables,
    unknownVariables,
    errors,
    warnings,
  };
}

/**
 * Syntax errors refuse the save: 422 in the spec's shape, each issue naming line and column,
 * plus the first error's `line` and `column` at the top of the body.
 */
export function validatedForSave(
  body: string,
  options: { declaredVariables: string[] | null; maxTokens: number | null },
): Validation {
  const { syntaxProblems, ...validation } = validateTemplate(body, options);
  if (syntaxProblems.length > 0) {
    const issues = syntaxProblems.map((p) => ({
      loc: ['body', 'body'],
      msg: `line ${p.line}, column ${p.column}: ${p.message}`,
      type: 'template_syntax',
    }));
    throw new ValidationFailed(issues, { line: syntaxProblems[0].line, column: syntaxProblems[0].column });
  }
  return validation;
}
