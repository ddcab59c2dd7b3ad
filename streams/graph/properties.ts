/**
 * Vertex and edge properties are stored as strings: numbers and booleans as
 * their text, nested structures as JSON text. `null` in an update removes the property.
 */
export type Properties = Record<string, string>;

export function storedValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** Splits a client's property object into values to set and names to remove. */
export function toStoredProperties(input: Record<string, unknown>): { set: Properties; removed: string[] } {
  const set: Properties = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(input)) {
    if (value === null || value === undefined) removed.push(name);
    else set[name] = storedValue(value);
  }
  return { set, removed };
}

export function applyChanges(properties: Properties, set: Properties, removed: string[]): Properties {
  const next = { ...properties, ...set };
  for (const name of removed) delete next[name];
  return next;
}

export const numberOf = (value: string | undefined): number => {
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) ? n : 0;
};
