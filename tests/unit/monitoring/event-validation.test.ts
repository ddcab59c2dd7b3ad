import { expect } from 'chai';
import { hiddenFields, validateEventFields } from '../../../commands/monitoring/event-validation';
import { ValidationFailed } from '../../../src/platform/domain-errors';
import type { ConditionalRule, FieldDef, GuardRule, LiveEventType } from '../../../streams/monitoring/event-type';

const NOW = new Date('2026-03-01T12:00:00Z');
const f = (name: string, type: FieldDef['type'], extra: Partial<FieldDef> = {}): FieldDef => ({
  id: name,
  name,
  type,
  required: false,
  options: null,
  label: null,
  description: null,
  entityType: null,
  ...extra,
});

function typeWith(
  fields: FieldDef[],
  conditionalRules: ConditionalRule[] = [],
  guardRules: GuardRule[] = [],
): LiveEventType {
  return {
    status: 'active',
    id: 't',
    name: 'T',
    description: null,
    category: null,
    complianceDomain: null,
    anomalyKind: null,
    fields,
    conditionalRules,
    guardRules,
    referenced: false,
    createdAt: '',
    createdBy: '',
    updatedAt: '',
  };
}

function issues(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationFailed);
    return (error as ValidationFailed).issues.map((i) => [i.loc.join('.'), i.type]);
  }
  throw new Error('expected a ValidationFailed');
}

describe('event field validation', () => {
  const all = typeWith([
    f('n', 'number'),
    f('s', 'select', { options: ['a', 'b'] }),
    f('t', 'text'),
    f('d', 'date'),
    f('dt', 'datetime'),
    f('b', 'boolean'),
    f('e', 'entity_ref'),
  ]);

  it('accepts a value of every field type', () => {
    const values = { n: -1.5, s: 'b', t: '', d: '2024-02-29', dt: '2026-03-01T10:00:00.123+05:30', b: true, e: 'W-1' };
    expect(validateEventFields(all, values, NOW).values).to.deep.equal(values);
  });

  it('names every wrong value with its kind', () => {
    expect(
      issues(() =>
        validateEventFields(
          all,
          { n: NaN, s: 'c', t: 5, d: '2025-02-29', dt: '2026-03-01T10:00:00', b: 'true', e: ' ', x: 1 },
          NOW,
        ),
      ),
    ).to.deep.equal([
      ['body.fields.n', 'wrong_type'],
      ['body.fields.s', 'invalid_option'],
      ['body.fields.t', 'wrong_type'],
      ['body.fields.d', 'wrong_type'],
      ['body.fields.dt', 'wrong_type'],
      ['body.fields.b', 'wrong_type'],
      ['body.fields.e', 'wrong_type'],
      ['body.fields.x', 'unknown_field'],
    ]);
  });

  it('null counts as absent', () => {
    const type = typeWith([f('t', 'text', { required: true })]);
    expect(issues(() => validateEventFields(type, { t: null }, NOW))).to.deep.equal([['body.fields.t', 'missing']]);
  });

  it('hiding cascades: a field shown only by a hidden field is hidden too', () => {
    const type = typeWith(
      [f('kind', 'select', { options: ['x', 'y'] }), f('a', 'text'), f('b', 'text', { required: true })],
      [
        {
          id: 'r1',
          field: 'a',
          effect: 'show',
          when: { field: 'kind', operator: 'equals', value: 'y' },
          description: null,
        },
        {
          id: 'r2',
          field: 'b',
          effect: 'show',
          when: { field: 'a', operator: 'is_set', value: null },
          description: null,
        },
      ],
    );
    expect([...hiddenFields(type, { kind: 'x', a: 'set' })].sort()).to.deep.equal(['a', 'b']);
    expect(validateEventFields(type, { kind: 'x', a: 'set' }, NOW)).to.deep.equal({
      values: { kind: 'x' },
      hidden: ['a'],
    });
    expect(issues(() => validateEventFields(type, { kind: 'y', a: 'set' }, NOW))).to.deep.equal([
      ['body.fields.b', 'missing'],
    ]);
  });

  it('a hide rule hides while its condition holds', () => {
    const type = typeWith(
      [f('shut_in', 'boolean'), f('rate', 'number', { required: true })],
      [
        {
          id: 'r',
          field: 'rate',
          effect: 'hide',
          when: { field: 'shut_in', operator: 'equals', value: true },
          description: null,
        },
      ],
    );
    expect(validateEventFields(type, { shut_in: true }, NOW).values).to.deep.equal({ shut_in: true });
    expect(issues(() => validateEventFields(type, { shut_in: false }, NOW))).to.deep.equal([
      ['body.fields.rate', 'missing'],
    ]);
  });

  describe('guard rules', () => {
    const guard = (id: string, def: Partial<GuardRule['draft']>, published = true): GuardRule => {
      const d = { field: 'v', operator: 'lte' as const, value: 100, message: null, when: null, enabled: true, ...def };
      return { id, name: `rule ${id}`, draft: d, publishedVersion: published ? 3 : 0, published: published ? d : null };
    };
    const fields = [f('v', 'number'), f('on', 'date'), f('mode', 'select', { options: ['auto', 'manual'] })];

    it('only the published version is checked, and only when enabled', () => {
      expect(validateEventFields(typeWith(fields, [], [guard('g', {}, false)]), { v: 500 }, NOW).values).to.deep.equal({
        v: 500,
      });
      expect(
        validateEventFields(typeWith(fields, [], [guard('g', { enabled: false })]), { v: 500 }, NOW).values,
      ).to.deep.equal({ v: 500 });
    });

    it('a failure names the rule, its version and the field', () => {
      try {
        validateEventFields(typeWith(fields, [], [guard('g', {})]), { v: 500 }, NOW);
        expect.fail('should throw');
      } catch (error) {
        const e = error as ValidationFailed;
        expect(e.issues).to.deep.equal([
          {
            loc: ['body', 'fields', 'v'],
            msg: 'guard rule "rule g" (version 3) failed: v must be at most 100',
            type: 'guard_rule_failed',
          },
        ]);
        expect(e.body).to.deep.equal({
          failed_rules: [
            { rule_id: 'g', rule_name: 'rule g', rule_version: 3, field: 'v', message: 'v must be at most 100' },
          ],
        });
      }
    });

    it('a guard with a condition applies only while it holds; an absent value passes a comparison', () => {
      const type = typeWith(fields, [], [guard('g', { when: { field: 'mode', operator: 'equals', value: 'manual' } })]);
      expect(validateEventFields(type, { v: 500, mode: 'auto' }, NOW).values.v).to.equal(500);
      expect(issues(() => validateEventFields(type, { v: 500, mode: 'manual' }, NOW))).to.deep.equal([
        ['body.fields.v', 'guard_rule_failed'],
      ]);
      expect(validateEventFields(type, { mode: 'manual' }, NOW).values).to.deep.equal({ mode: 'manual' });
    });

    it('required, not_in_future and in', () => {
      const type = typeWith(
        fields,
        [],
        [
          guard('r', { operator: 'required', value: null }),
          guard('f', { field: 'on', operator: 'not_in_future', value: null }),
          guard('i', { operator: 'in', value: [1, 2] }),
        ],
      );
      expect(issues(() => validateEventFields(type, { on: '2026-03-02' }, NOW))).to.deep.equal([
        ['body.fields.v', 'guard_rule_failed'],
        ['body.fields.on', 'guard_rule_failed'],
      ]);
      expect(validateEventFields(type, { v: 2, on: '2026-03-01' }, NOW).values).to.deep.equal({
        v: 2,
        on: '2026-03-01',
      });
    });
  });
});
