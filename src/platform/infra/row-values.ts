/**
 * A timestamp column as the API writes it: node-postgres gives `timestamptz` as a Date, a
 * text column or a JSON value gives a string; absent stays null.
 */
export const isoOrNull = (value: unknown): string | null =>
  value instanceof Date ? value.toISOString() : value === null || value === undefined ? null : String(value);
