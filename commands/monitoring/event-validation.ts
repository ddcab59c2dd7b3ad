import { type FieldIssue, ValidationFailed } from '../../src/platform/domain-errors';
import type { FieldDef, GuardDefinition, LiveEventType } from '../../streams/monitoring/event-type';
import type { FieldValues } from '../../streams/monitoring/operational-event';
import { conditionHolds, hiddenFields, holds, type Scalar, valueProblem } from '../../streams/monitoring/field-rules';

export { hiddenFields, MAX_TEXT, valueProblem } from '../../streams/monitoring/field-rules';

/**
 * How an operational event's `fields` are checked against its type (pure; used by log and
 * update). Order: unknown names and wrong types (422 each naming the field), then
 * visibility from conditional rules (a hidden field is never required and its value is
 * dropped), then required fields, then the published guard rules (422 naming the rule and
 * the field).
 */

function describe(def: GuardDefinition): string {
  const v = Array.isArray(def.value) ? def.value.join(', ') : String(def.value);
  switch (def.operator) {
    case 'required':
      return 'is required';
    case 'equals':
      return `must equal ${v}`;
    case 'not_equals':
      return `must not equal ${v}`;
    case 'in':
      return `must be one of: ${v}`;
    case 'not_in':
      return `must not be one of: ${v}`;
    case 'gt':
      return `must be greater than ${v}`;
    case 'gte':
      return `must be at least ${v}`;
    case 'lt':
      return `must be less than ${v}`;
    case 'lte':
      return `must be at most ${v}`;
    case 'min_length':
      return `must have at least ${v} characters`;
    case 'max_length':
      return `must have at most ${v} characters`;
    case 'not_in_future':
      return 'must not be in the future';
    default:
      return 'is invalid';
  }
}

function guardPasses(def: GuardDefinition, field: FieldDef, value: Scalar | undefined, now: Date): boolean {
  switch (def.operator) {
    case 'required':
      return value !== undefined && value !== '';
    case 'min_length':
      return value === undefined || String(value).length >= Number(def.value);
    case 'max_length':
      return value === undefined || String(value).length <= Number(def.value);
    case 'not_in_future':
      return value === undefined || Date.parse(String(value)) <= now.getTime();
    case 'equals':
    case 'in':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      // Nothing to check on an absent value: `required` is the guard for presence.
      return value === undefined || holds(def.operator, field.type, value, def.value);
    default:
      return holds(def.operator, field.type, value, def.value);
  }
}

export interface FailedGuard {
  rule_id: string;
  rule_name: string;
  rule_version: number;
  field: string;
  message: string;
}

export interface ValidatedFields {
  values: FieldValues;
  /** Fields the conditional rules hid; values given for them were dropped. */
  hidden: string[];
}

/** The checked values of an event, or ValidationFailed (422) naming every bad field and failed guard rule. */
export function validateEventFields(type: LiveEventType, input: Record<string, unknown>, now: Date): ValidatedFields {
  const byName = new Map(type.fields.map((f) => [f.name, f]));
  const issues: FieldIssue[] = [];
  const given: Record<string, Scalar> = {};
  for (const [name, value] of Object.entries(input)) {
    const field = byName.get(name);
    if (!field) {
      issues.push({
        loc: ['body', 'fields', name],
        msg: `unknown field "${name}" for event type ${type.name}`,
        type: 'unknown_field',
      });
      continue;
    }
    if (value === null || value === undefined) continue;
    const problem = valueProblem(field, value);
    if (problem)
      issues.push({
        loc: ['body', 'fields', name],
        msg: `${name} ${problem}`,
        type: field.type === 'select' && typeof value === 'string' ? 'invalid_option' : 'wrong_type',
      });
    else given[name] = value as Scalar;
  }
  if (issues.length > 0) throw new ValidationFailed(issues);

  const hidden = hiddenFields(type, given);
  const values: FieldValues = {};
  for (const field of type.fields)
    if (!hidden.has(field.name) && given[field.name] !== undefined) values[field.name] = given[field.name];
  for (const field of type.fields) {
    if (field.required && !hidden.has(field.name) && values[field.name] === undefined) {
      issues.push({ loc: ['body', 'fields', field.name], msg: `${field.name} is required`, type: 'missing' });
    }
  }
  if (issues.length > 0) throw new ValidationFailed(issues);

  const failed: FailedGuard[] = [];
  for (const rule of type.guardRules) {
    const def = rule.published;
    if (!def || !def.enabled || hidden.has(def.field)) continue;
    const field = byName.get(def.field);
    if (!field) continue;
    if (def.when && !conditionHolds(def.when, byName, values)) continue;
    if (!guardPasses(def, field, values[def.field], now)) {
      failed.push({
        rule_id: rule.id,
        rule_name: rule.name,
        rule_version: rule.publishedVersion,
        field: def.field,
        message: def.message ?? `${def.field} ${describe(def)}`,
      });
    }
  }
  if (failed.length > 0) {
    throw new ValidationFailed(
      failed.map((f) => ({
        loc: ['body', 'fields', f.field],
        msg: `guard rule "${f.rule_name}" (version ${f.rule_version}) failed: ${f.message}`,
        type: 'guard_rule_failed',
      })),
      { failed_rules: failed },
    );
  }
  return { values, hidden: [...hidden].filter((n) => n in input) };
}

/**
 * Checks a condition or guard against the type's fields when a rule is written: the field
 * exists, the operator suits its type, and the compared value is a value of that field.
 */
export function conditionIssues(
  type: LiveEventType,
  c: { field: string; operator: string; value: unknown },
  loc: (string | number)[],
): FieldIssue[] {
  const field = type.fields.find((f) => f.name === c.field);
  if (!field) return [{ loc: [...loc, 'field'], msg: `unknown field "${c.field}"`, type: 'unknown_field' }];
  const at = [...loc, 'value'];
  switch (c.operator) {
    case 'is_set':
    case 'is_not_set':
    case 'required':
      return [];
    case 'not_in_future':
      return field.type === 'date' || field.type === 'datetime'
        ? []
        : [{ loc: [...loc, 'operator'], msg: 'not_in_future needs a date or datetime field', type: 'wrong_type' }];
    case 'min_length':
    case 'max_length':
      return typeof c.value === 'number' && Number.isInteger(c.value) && c.value >= 0
        ? []
        : [{ loc: at, msg: 'must be a non-negative integer', type: 'wrong_type' }];
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (!['number', 'date', 'datetime'].includes(field.type))
        return [
          {
            loc: [...loc, 'operator'],
            msg: `${c.operator} needs a number, date or datetime field`,
            type: 'wrong_type',
          },
        ];
      return valueProblem(field, c.value)
        ? [{ loc: at, msg: `${valueProblem(field, c.value)}`, type: 'wrong_type' }]
        : [];
    case 'in':
    case 'not_in': {
      if (!Array.isArray(c.value) || c.value.length === 0)
        return [{ loc: at, msg: 'must be a non-empty list', type: 'wrong_type' }];
      return c.value.flatMap((v, i) =>
        valueProblem(field, v) ? [{ loc: [...at, i], msg: `${valueProblem(field, v)}`, type: 'wrong_type' }] : [],
      );
    }
    default:
      return valueProblem(field, c.value)
        ? [{ loc: at, msg: `${valueProblem(field, c.value)}`, type: 'wrong_type' }]
        : [];
  }
}
