import type { Condition, FieldDef, FieldType, GuardDefinition, LiveEventType } from './event-type';

/**
 * The pure half of an operational event's field rules: a value's type check and which fields
 * the conditional rules hide. The console runs `hiddenFields` as the user types, so this file
 * imports types only and stays loadable in the browser.
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
export const MAX_TEXT = 10_000;

export type Scalar = string | number | boolean;

const isValidDate = (s: string) =>
  DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
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
      return typeof value === 'string' && isValidDatetime(value)
        ? null
        : 'must be an ISO 8601 date-time with a time zone';
    case 'entity_ref':
      return typeof value === 'string' && value.trim().length > 0 && value.length <= 200
        ? null
        : 'must be an entity id (1 to 200 characters)';
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

export function holds(
  operator: Condition['operator'] | GuardDefinition['operator'],
  type: FieldType,
  value: Scalar | undefined,
  expected: unknown,
): boolean {
  if (operator === 'is_set') return value !== undefined;
  if (operator === 'is_not_set') return value === undefined;
  if (operator === 'not_equals') return value === undefined || value !== expected;
  if (operator === 'not_in')
    return value === undefined || !(Array.isArray(expected) && expected.includes(value as never));
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

export function conditionHolds(
  condition: Condition,
  fields: Map<string, FieldDef>,
  values: Record<string, Scalar>,
): boolean {
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
