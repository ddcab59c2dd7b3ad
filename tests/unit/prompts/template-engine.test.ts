import { expect } from 'chai';
import { analyseTemplate, renderTemplate, RenderFailed } from '../../../streams/prompts/template-engine';
import { validateTemplate, validatedForSave } from '../../../streams/prompts/validate-template';
import { ValidationFailed } from '../../../src/platform/domain-errors';
import { countTokens } from '../../../src/platform/infra/tokens';
import { parsePromptRef, systemPromptRef } from '../../../queries/prompts/resolve-prompt';

const subsetOf = (body: string) =>
  analyseTemplate(body)
    .subsetErrors.map((e) => e.message)
    .join(' | ');

describe('prompt template engine: the safe Jinja subset', () => {
  it('renders variables, conditions, loops over data and whitelisted filters', () => {
    const body =
      'Hello {{ name | title }}.\n{% if wells %}Wells:{% for w in wells %} {{ loop.index }}={{ w.api }}{% endfor %}{% else %}none{% endif %}';
    expect(renderTemplate(body, { name: 'ann lee', wells: [{ api: '42-1' }, { api: '42-2' }] })).to.equal(
      'Hello Ann Lee.\nWells: 1=42-1 2=42-2',
    );
  });

  it('extracts the variables a template reads, leaving out loop and set names', () => {
    const body =
      '{% set greeting = "Hi" %}{{ greeting }} {{ user.name }}{% for w in wells %}{{ w }}{{ district }}{% endfor %}';
    expect(analyseTemplate(body).variables).to.deep.equal(['user', 'wells', 'district']);
  });

  it('places a syntax error at its line and column', () => {
    const { syntaxErrors } = analyseTemplate('line one\nline two {{ name \nthree');
    expect(syntaxErrors[0]).to.include({ line: 2, column: 10 });
    expect(syntaxErrors[0].message).to.match(/unclosed \{\{ tag/);
  });

  it('reports an unclosed block at the tag that opened it', () => {
    const { syntaxErrors } = analyseTemplate('a\n  {% if x %}\nb');
    expect(syntaxErrors).to.deep.equal([{ message: '{% if %} is never closed', line: 2, column: 3 }]);
  });

  it('reports a malformed expression inside a tag with its position', () => {
    const { syntaxErrors } = analyseTemplate('ok {{ a }}\n{{ 1 + }}');
    expect(syntaxErrors[0]).to.include({ line: 2, column: 1 });
  });

  it('refuses includes, imports, extends and macros as outside the subset', () => {
    for (const tag of [
      '{% include "other" %}',
      '{% import "m" as m %}',
      '{% extends "base" %}',
      '{% macro m() %}x{% endmacro %}',
      '{% from "x" import y %}',
    ]) {
      const analysis = analyseTemplate(`a ${tag} b`);
      expect(analysis.syntaxErrors, tag).to.deep.equal([]);
      expect(analysis.subsetErrors.length, tag).to.be.greaterThan(0);
    }
  });

  it('refuses attribute access to internals and function calls', () => {
    expect(subsetOf('{{ x.__class__ }}')).to.match(/__class__/);
    expect(subsetOf('{{ x.constructor }}')).to.match(/constructor/);
    expect(subsetOf('{{ x["__proto__"] }}')).to.match(/__proto__/);
    expect(subsetOf('{{ x.items() }}')).to.match(/function calls/);
    expect(subsetOf('{{ namespace(a=1) }}')).to.match(/namespace|function calls/);
    expect(subsetOf('{{ x | attr("y") }}')).to.match(/filter attr/);
    expect(subsetOf('{{ x | center(100000000) }}')).to.match(/widths above 200/);
    expect(subsetOf('{{ x | indent(n) }}')).to.match(/only literal arguments/);
    expect(subsetOf('{{ x | indent(4, true) }}')).to.equal('');
  });

  it('refuses unbounded or oversized loops', () => {
    expect(subsetOf('{% for i in range(n) %}{{ i }}{% endfor %}')).to.match(/integer literals/);
    expect(subsetOf('{% for i in range(200) %}{% for j in range(200) %}{{ j }}{% endfor %}{% endfor %}')).to.match(
      /more than 10000 iterations/,
    );
    expect(
      subsetOf(
        '{% for a in x %}{% for b in a %}{% for c in b %}{% for d in c %}{% endfor %}{% endfor %}{% endfor %}{% endfor %}',
      ),
    ).to.match(/nested deeper than 3/);
    expect(subsetOf('{% for i in range(10) %}{{ i }}{% endfor %}')).to.equal('');
  });

  it('never renders a template outside the subset', () => {
    expect(() => renderTemplate('{% include "x" %}', {})).to.throw(RenderFailed, /safe subset/);
  });
});

describe('prompt validation result', () => {
  it('is valid for a clean template, with the real token count and variables', () => {
    const body = 'You are a compliance assistant for {{ operator }}.';
    const v = validateTemplate(body, { declaredVariables: ['operator'], maxTokens: null });
    expect(v).to.deep.include({
      valid: true,
      syntaxOk: true,
      subsetOk: true,
      tokenEstimate: countTokens(body),
      variablesExtracted: ['operator'],
      unknownVariables: [],
      errors: [],
      warnings: [],
    });
    expect(v.injectionScan).to.deep.equal({ status: 'clean', findings: [] });
  });

  it('names variables the template does not declare and warns over the tier budget', () => {
    const v = validateTemplate('{{ operator }} {{ secret }}', { declaredVariables: ['operator'], maxTokens: 2 });
    expect(v.valid).to.equal(true);
    expect(v.unknownVariables).to.deep.equal(['secret']);
    expect(v.warnings.join('\n'))
      .to.match(/not declared.*secret/)
      .and.to.match(/exceeds the budget tier's 2/);
  });

  it('marks a subset violation invalid without refusing the save', () => {
    const v = validatedForSave('{% include "x" %}', { declaredVariables: null, maxTokens: null });
    expect(v).to.include({ valid: false, syntaxOk: true, subsetOk: false });
    expect(v.errors[0]).to.match(/line 1, column 1: .*include/);
  });

  it('refuses a save with syntax errors as 422 naming line and column', () => {
    let thrown: unknown;
    try {
      validatedForSave('ok\n{% for x in y %}', { declaredVariables: null, maxTokens: null });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(ValidationFailed);
    const failed = thrown as ValidationFailed;
    expect(failed.body).to.deep.equal({ line: 2, column: 1 });
    expect(failed.issues[0]).to.deep.equal({
      loc: ['body', 'body'],
      msg: 'line 2, column 1: {% for %} is never closed',
      type: 'template_syntax',
    });
  });
});

describe('agent system prompt address', () => {
  it('maps an agent type to agents:<slug>', () => {
    expect(systemPromptRef('compliance_checker')).to.equal('agents:compliance_checker');
    expect(systemPromptRef('Well Analyst')).to.equal('agents:well-analyst');
    expect(parsePromptRef(systemPromptRef('Well Analyst'))).to.deep.equal({
      namespace: 'agents',
      slug: 'well-analyst',
    });
    expect(parsePromptRef('no-colon')).to.equal(null);
  });
});

describe('prompt validation on hostile bodies', () => {
  it('refuses blocks nested past the limit with one positioned error', () => {
    const { syntaxErrors } = analyseTemplate('{% if a %}'.repeat(3000) + 'x' + '{% endif %}'.repeat(3000));
    expect(syntaxErrors).to.deep.equal([{ message: 'blocks nested deeper than 50', line: 1, column: 501 }]);
  });

  it('keeps at most 100 injection findings', () => {
    const v = validateTemplate('a\u200B'.repeat(5000), { declaredVariables: null, maxTokens: null });
    expect(v.injectionScan.status).to.equal('fail');
    expect(v.injectionScan.findings).to.have.length(100);
  });
});
