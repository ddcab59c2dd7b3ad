import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Document, type IRuleResult } from '@stoplight/spectral-core';
import { Yaml } from '@stoplight/spectral-parsers';
import { contexts } from '../../../src/contexts';
import { lintOpenApi, RULES_OFF } from '../../../src/platform/openapi/lint';
import { documentFor } from '../../../src/platform/openapi/serve';

/**
 * The OWASP API Security Top 10 ruleset and Spectral's OpenAPI rules on the document the
 * platform serves, with only the rules `.spectral.yaml` turns off.
 */
describe('the served OpenAPI document under the API security rules', function () {
  this.timeout(300_000);
  let results: IRuleResult[];
  const where = (r: IRuleResult) => `${r.code} at ${r.path.join('.')}`;
  const errors = () => results.filter((r) => r.severity === 0);

  let authenticated: Set<string>;

  before(async () => {
    const document = documentFor(contexts, 'public');
    results = await lintOpenApi(document);
    // Operations that need a session: security set, and no `{}` (anonymous) alternative.
    authenticated = new Set(
      Object.entries<Record<string, { security?: object[] }>>(document.paths as never).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(
            ([, op]) => (op.security ?? []).length > 0 && !(op.security ?? []).some((s) => Object.keys(s).length === 0),
          )
          .map(([method, op]) => {
            const documented = Object.keys((op as { responses?: object }).responses ?? {});
            if (!documented.includes('401') || !documented.includes('403'))
              throw new Error(`${method.toUpperCase()} ${path} needs a session but does not document 401 and 403`);
            return `${path}.${method}`;
          }),
      ),
    );
  });

  it('turns off only the rules .spectral.yaml turns off, each with its reason; the file is the ruleset the CLI reads', () => {
    const text = readFileSync(path.join(__dirname, '../../../.spectral.yaml'), 'utf8');
    // Parsed as the CLI parses it (an unquoted `@scope/…` is reserved YAML the CLI refuses).
    const file = new Document(text, Yaml);
    expect(file.diagnostics.filter((d) => d.severity === 0).map((d) => d.message)).to.deep.equal([]);
    const ruleset = file.data as { extends: Array<[string, string]>; rules: Record<string, string> };
    expect(ruleset.extends).to.deep.equal([
      ['spectral:oas', 'recommended'],
      ['@stoplight/spectral-owasp-ruleset', 'recommended'],
    ]);
    expect(
      Object.entries(ruleset.rules)
        .filter(([, v]) => v === 'off')
        .map(([k]) => k),
    ).to.have.members(Object.keys(RULES_OFF));
    expect(Object.keys(ruleset.rules)).to.have.members(Object.keys(RULES_OFF));
  });

  it('reports no error on the whole document: every input bounded by its check, every output by a stated bound, no rule broken elsewhere', () => {
    expect(errors().map(where)).to.deep.equal([]);
  });

  it("reports no error on the internal listener's document either (its callers assert the identity with bounded headers)", async () => {
    const internal = await lintOpenApi(documentFor(contexts, 'internal'));
    expect(internal.filter((r) => r.severity === 0).map(where)).to.deep.equal([]);
  });

  it('describes and tags every operation; every authenticated one documents 401 and 403, every rate-limited one 429', () => {
    const warnings = results.filter((r) => r.severity === 1);
    expect(
      warnings.filter((r) => /^operation-(description|tag-defined)$/.test(String(r.code))).map(where),
    ).to.deep.equal([]);
    const operation = (r: IRuleResult) => `${r.path[1]}.${r.path[2]}`;
    expect(authenticated.size).to.be.greaterThan(100);
    expect(
      warnings
        .filter((r) => r.code === 'owasp:api8:2023-define-error-responses-401' && authenticated.has(operation(r)))
        .map(where),
    ).to.deep.equal([]);
    // Health, the reference page and the evidence keys (JWKS) sit outside the gateway and its rate limit.
    expect(
      warnings
        .filter(
          (r) =>
            r.code === 'owasp:api4:2023-rate-limit-responses-429' &&
            !/^paths\.\/(health|docs|\.well-known\/jwks\.json)\b/.test(r.path.join('.')),
        )
        .map(where),
    ).to.deep.equal([]);
  });
});
