import { FieldIssue, ValidationFailed } from '../../src/platform/domain-errors';
import type { Condition, FieldDef, FieldType, GuardDefinition, LiveEventType } from '../../streams/monitoring/event-type';
import type { FieldValues } from '../../streams/monitoring/operational-event';

/**
 * How an operational event's `fields` are checked against its type (pure; used by log and
 * update). Order: unknown names and wrong types (422 each naming the field), then
 * visibility from conditional rules (a hidden field is never required and its value is
 * dropped), then required fields, then the published guard rules (422 naming the rule and
 * the field).
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
export const MAX_TEXT = 10_000;

type Scalar = string | number | boolean;

const isValidDate = (s: string) => DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
const isValidDatetime = (s: string) => DATETIME.test(s) && !Number.isNaN(Date.parse(s));

/** Why `value` is not a valid value of `field`, or null. */
export function valueProblem(field: Pick<FieldDef, 'type' | 'options'>, value: unknown): string | null {
  switch (field.type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'select':
      if (typeof value !== 'string') return 'must be one of the options';
      return (field.options ?? []).includes(value) ? null : `must be one of: ${(field.options ?? []).join(', ')}`;
    case 'text':
      if (typeof value !== 'string') return 'must be a string';
      return value.length <= MAX_TEXT ? null : `must be at most ${MAX_TEXT} characters`;
    case 'date':
      return typeof value === 'string' && isValidDate(value) ? null : 'must be a date (YYYY-MM-DD)';
    case 'datetime':
      return typeof value === 'string' && isValidDatetime(value) ? null : 'must be an ISO 8601 date-time with a time zone';
    case 'entity_ref':
      return typeof value === 'string' && value.trim().length > 0 && value.length <= 200 ? null : 'must be an entity id (1 to 200 characters)';
  }
}

function ordered(type: FieldType, a: Scalar, b: Scalar): number | null {
  if (type === 'number') return typeof a === 'number' && typeof b === 'number' ? a - b : null;
  if (type === 'date' || type === 'datetime') {
    const x = Date.parse(String(a));
    const y = Date.parse(String(b));
    return Number.isNaN(x) || Number.isNaN(y) ? null : x - y;
  }
  return null;
}

function holds(operator: Condition['operator'] | GuardDefinition['operator'], type: FieldType, value: Scalar | undefined, expected: unknown): boolean {
  if (operator === 'is_set') return value !== undefined;
  if (operator === 'is_not_set') return value === undefined;
  if (operator === 'not_equals') return value === undefined || value !== expected;
  if (operator === 'not_in') return value === undefined || !(Array.isArray(expected) && expected.includes(value as never));
  if (value === undefined) return false;
  switch (operator) {
    case 'equals':
      return value === expected;
    case 'in':
      return Array.isArray(expected) && expected.includes(value as never);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const c = ordered(type, value, expected as Scalar);
      if (c === null) return false;
      return operator === 'gt' ? c > 0 : operator === 'gte' ? c >= 0 : operator === 'lt' ? c < 0 : c <= 0;
    }
    default:
      return false;
  }
}

export function conditionHolds(condition: Condition, fields: Map<string, FieldDef>, values: Record<string, Scalar>): boolean {
  const field = fields.get(condition.field);
  if (!field) return false;
  return holds(condition.operator, field.type, values[condition.field], condition.value);
}

/**
 * Fields hidden by the conditional rules for these values. A field with `show` rules is
 * visible only while one of them holds; any `hide` rule that holds hides it. Conditions on
 * a hidden field see it as unset, so visibility is iterated to a fixed point.
 */
export function hiddenFields(type: LiveEventType, values: Record<string, Scalar>): Set<string> {
  const byName = new Map(type.fields.map((f) => [f.name, f]));
  let hidden = new Set<string>();
  for (let round = 0; round <= type.fields.length; round++) {
    const visibleValues = Object.fromEntries(Object.entries(values).filter(([k]) => !hidden.has(k)));
    const next = new Set<string>();
    for (const field of type.fields) {
      const rules = type.conditionalRules.filter((r) => r.field === field.name);
      const shows = rules.filter((r) => r.effect === 'show');
      const shown = shows.length === 0 || shows.some((r) => conditionHolds(r.when, byName, visibleValues));
      const hiddenByRule = rules.some((r) => r.effect === 'hide' && conditionHolds(r.when, byName, visibleValues));
      if (!shown || hiddenByRule) next.add(field.name);
    }
    if (next.size === hidden.size && [...next].every((n) => hidden.has(n))) break;
    hidden = next;
  }
  return hidden;
}

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
      issues.push({ loc: ['body', 'fields', name], msg: `unknown field "${name}" for event type ${type.name}`, type: 'unknown_field' });
      continue;
    }
    if (value === null || value === undefined) continue;
    const problem = valueProblem(field, value);
    if (problem) issues.push({ loc: ['body', 'fields', name], msg: `${name} ${problem}`, type: field.type === 'select' && typeof value === 'string' ? 'invalid_option' : 'wrong_type' });
    else given[name] = value as Scalar;
  }
  if (issues.length > 0) throw new ValidationFailed(issues);

  const hidden = hiddenFields(type, given);
  const values: FieldValues = {};
  for (const field of type.fields) if (!hidden.has(field.name) && given[field.name] !== undefined) values[field.name] = given[field.name];
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
      failed.push({ rule_id: rule.id, rule_name: rule.name, rule_version: rule.publishedVersion, field: def.field, message: def.message ?? `${def.field} ${describe(def)}` });
    }
  }
  if (failed.length > 0) {
    throw new ValidationFailed(
      failed.map((f) => ({ loc: ['body', 'fields', f.field], msg: `guard rule "${f.rule_name}" (version ${f.rule_version}) failed: ${f.message}`, type: 'guard_rule_failed' })),
      { failed_rules: failed },
    );
  }
  return { values, hidden: [...hidden].filter((n) => n in input) };
}

/**
 * Checks a condition or guard against the type's fields when a rule is written: the field
 * exists, the operator suits its type, and the compared value is a value of that field.
 */
export function conditionIssues(type: LiveEventType, c: { field: string; operator: string; value: unknown }, loc: (string | number)[]): FieldIssue[] {
  const field = type.fields.find((f) => f.name === c.field);
  if (!field) return [{ loc: [...loc, 'field'], msg: `unknown field "${c.field}"`, type: 'unknown_field' }];
  const at = [...loc, 'value'];
  switch (c.operator) {
    case 'is_set':
    case 'is_not_set':
    case 'required':
      return [];
    case 'not_in_future':
      return field.type === 'date' || field.type === 'datetime' ? [] : [{ loc: [...loc, 'operator'], msg: 'not_in_future needs a date or datetime field', type: 'wrong_type' }];
    case 'min_length':
    case 'max_length':
      return typeof c.value === 'number' && Number.isInteger(c.value) && c.value >= 0 ? [] : [{ loc: at, msg: 'must be a non-negative integer', type: 'wrong_type' }];
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (!['number', 'date', 'datetime'].includes(field.type)) return [{ loc: [...loc, 'operator'], msg: `${c.operator} needs a number, date or datetime field`, type: 'wrong_type' }];
      return valueProblem(field, c.value) ? [{ loc: at, msg: `${valueProblem(field, c.value)}`, type: 'wrong_type' }] : [];
    case 'in':
    case 'not_in': {
      if (!Array.isArray(c.value) || c.value.length === 0) return [{ loc: at, msg: 'must be a non-empty list', type: 'wrong_type' }];
      return c.value.flatMap((v, i) => (valueProblem(field, v) ? [{ loc: [...at, i], msg: `${valueProblem(field, v)}`, type: 'wrong_type' }] : []));
    }
    default:
      return valueProblem(field, c.value) ? [{ loc: at, msg: `${valueProblem(field, c.value)}`, type: 'wrong_type' }] : [];
  }
}
