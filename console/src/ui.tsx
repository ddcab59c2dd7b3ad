import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { api, ApiError, qs } from './api';

/** An error message shown next to what caused it; announced to screen readers. */
export function ErrorText({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  const message = error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error);
  const status = error instanceof ApiError && error.status ? ` (${error.status})` : '';
  return (
    <p className="error" role="alert" id={id}>
      {message}
      {status}
    </p>
  );
}

export function fieldError(error: unknown, field: string): string | undefined {
  return error instanceof ApiError ? error.fields[field] : undefined;
}

/** Loads `load()` on mount and whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, deps);
  useEffect(() => {
    let live = true;
    setLoading(true);
    run().then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(undefined);
        setLoading(false);
      },
      (e) => {
        if (!live) return;
        setError(e);
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [run, tick]);
  return { data, error, loading, reload: () => setTick((t) => t + 1) };
}

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Compliance console`;
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title" tabIndex={-1}>
          {title}
        </h1>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

/**
 * One date format across the console: the user's locale, medium date and short time
 * ("28 Nov 2026, 14:42"), with the ISO value in the tooltip.
 */
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const DATE_ONLY = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

export function formatDateTime(at: string): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : DATE_TIME.format(d);
}

/** A calendar date (`2026-12-15`, or the date part of a timestamp) in the same format, without a time. */
export function formatDay(day: string): string {
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T00:00:00Z` : day);
  return Number.isNaN(d.getTime()) ? day : DATE_ONLY.format(d);
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  return (
    <time dateTime={at} title={at}>
      {formatDateTime(at)}
    </time>
  );
}

export function Day({ day }: { day: string | null | undefined }) {
  if (!day) return <span className="muted">—</span>;
  return (
    <time dateTime={day} title={day}>
      {formatDay(day)}
    </time>
  );
}

/** A number with the locale's thousands separators (strings that are numbers included). */
export function formatNumber(value: unknown): string {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))
        ? Number(value)
        : null;
  return n === null ? String(value) : n.toLocaleString(undefined, { maximumFractionDigits: 3 });
}

/** `entity_id` → "Entity id": a readable heading for a machine key. */
export function humanize(key: string): string {
  const words = key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim();
  return (
    words.charAt(0).toUpperCase() +
    words
      .slice(1)
      .replace(/\bid\b/gi, 'ID')
      .replace(/\bapi\b/gi, 'API')
  );
}

interface PersonName {
  id: string;
  display_name: string | null;
  email: string;
  kind: string;
}

/**
 * Names of user ids, fetched in batches: every `<Person>` rendered in the same tick asks once
 * (`GET /auth/people?ids=…`); answers are kept for the session.
 */
const known = new Map<string, PersonName | null>();
const waiting = new Map<string, Array<() => void>>();
let batch: Set<string> | null = null;

function lookUp(id: string, done: () => void) {
  waiting.set(id, [...(waiting.get(id) ?? []), done]);
  if (batch) return void batch.add(id);
  batch = new Set([id]);
  setTimeout(async () => {
    const ids = [...(batch ?? [])];
    batch = null;
    for (let i = 0; i < ids.length; i += 100) {
      const chunk = ids.slice(i, i + 100);
      const people = await api.get<{ people: PersonName[] }>(`/auth/people${qs({ ids: chunk.join(',') })}`).then(
        (r) => r.people,
        () => [],
      );
      for (const id of chunk) known.set(id, people.find((p) => p.id === id) ?? null);
      for (const id of chunk) for (const listener of waiting.get(id) ?? []) listener();
      for (const id of chunk) waiting.delete(id);
    }
  }, 0);
}

export function usePerson(id: string | null | undefined): PersonName | null | undefined {
  const [, setTick] = useState(0);
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    if (id && !known.has(id)) lookUp(id, () => live.current && setTick((t) => t + 1));
    return () => {
      live.current = false;
    };
  }, [id]);
  return id ? known.get(id) : null;
}

/** A person by name (e-mail in the tooltip); an id that names no account is shown as written. */
export function Person({ id, fallback = '—' }: { id: string | null | undefined; fallback?: string }) {
  const person = usePerson(id);
  if (!id) return <span className="muted">{fallback}</span>;
  if (person === undefined) return <span className="muted">…</span>;
  if (person === null) return <span className="mono small">{id}</span>;
  const name = person.kind === 'system' ? (person.display_name ?? 'the system') : (person.display_name ?? person.email);
  return <span title={person.email}>{name}</span>;
}

/**
 * A button for an action that is hard to undo: the first press asks, in place, and only
 * "Yes, …" does it. Escape or "Cancel" backs out.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  disabled,
  className,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
}) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" className={className ?? 'secondary'} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span
      className="confirm"
      role="group"
      aria-label={question}
      onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}
    >
      <span>{question}</span>{' '}
      <button
        type="button"
        ref={yes}
        className="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>{' '}
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A table from `{columns, rows}` (rows as arrays or objects) or from an array of objects. */
export function DataTable({ value, caption }: { value: unknown; caption?: string }) {
  let columns: string[] = [];
  let rows: unknown[][];
  const v = value as { columns?: unknown[]; rows?: unknown[]; headers?: Record<string, string> } | unknown[];
  // A tool result names its columns by key and gives people's headers (with units) beside them.
  const headers =
    !Array.isArray(v) && v && typeof v === 'object' && v.headers && typeof v.headers === 'object' ? v.headers : {};
  if (Array.isArray(v)) {
    const objects = v.filter((r) => r && typeof r === 'object') as Record<string, unknown>[];
    columns = [...new Set(objects.flatMap((o) => Object.keys(o)))];
    rows = objects.map((o) => columns.map((c) => o[c]));
  } else if (v && typeof v === 'object' && Array.isArray(v.rows)) {
    columns = (v.columns ?? []).map((c) =>
      typeof c === 'string'
        ? c
        : String((c as { name?: string; key?: string }).name ?? (c as { key?: string }).key ?? c),
    );
    rows = v.rows.map((r) => (Array.isArray(r) ? r : columns.map((c) => (r as Record<string, unknown>)[c])));
    if (columns.length === 0 && v.rows[0] && typeof v.rows[0] === 'object' && !Array.isArray(v.rows[0])) {
      columns = Object.keys(v.rows[0] as object);
      rows = v.rows.map((r) => columns.map((c) => (r as Record<string, unknown>)[c]));
    }
  } else return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
  return (
    <div className="table-wrap">
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {headers[c] ?? humanize(c)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {r.map((cell, j) => (
                <td key={j}>
                  {cell === null || cell === undefined
                    ? ''
                    : typeof cell === 'object'
                      ? JSON.stringify(cell)
                      : String(cell)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Runs a user action: busy while it runs, its error kept for display next to the control. */
export function useAction(): {
  busy: boolean;
  error: unknown;
  run: (work: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}

/** Parses a JSON object typed into a textarea; a readable error otherwise. */
export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = text.trim() ? JSON.parse(text) : {};
  } catch {
    throw new Error(`${what} must be a JSON object, e.g. {"name": "value"}.`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${what} must be a JSON object, e.g. {"name": "value"}.`);
  return value as Record<string, unknown>;
}

/** A labelled one-line text input (the label's text is its accessible name). */
export function TextField({
  label,
  value,
  onChange,
  required,
  placeholder,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
  placeholder?: string;
}) {
  return (
    <label>
      {label}
      <input value={value} required={required} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}
