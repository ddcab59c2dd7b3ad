import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { ApiError } from './api';

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
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
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

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  const d = new Date(at);
  return <time dateTime={at}>{d.toLocaleString()}</time>;
}

/** A table from `{columns, rows}` (rows as arrays or objects) or from an array of objects. */
export function DataTable({ value, caption }: { value: unknown; caption?: string }) {
  let columns: string[] = [];
  let rows: unknown[][] = [];
  const v = value as { columns?: unknown[]; rows?: unknown[]; headers?: Record<string, string> } | unknown[];
  // A tool result names its columns by key and gives people's headers (with units) beside them.
  const headers = !Array.isArray(v) && v && typeof v === 'object' && v.headers && typeof v.headers === 'object' ? v.headers : {};
  if (Array.isArray(v)) {
    const objects = v.filter((r) => r && typeof r === 'object') as Record<string, unknown>[];
    columns = [...new Set(objects.flatMap((o) => Object.keys(o)))];
    rows = objects.map((o) => columns.map((c) => o[c]));
  } else if (v && typeof v === 'object' && Array.isArray(v.rows)) {
    columns = (v.columns ?? []).map((c) => (typeof c === 'string' ? c : String((c as { name?: string; key?: string }).name ?? (c as { key?: string }).key ?? c)));
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
                {headers[c] ?? c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {r.map((cell, j) => (
                <td key={j}>{cell === null || cell === undefined ? '' : typeof cell === 'object' ? JSON.stringify(cell) : String(cell)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Runs a user action: busy while it runs, its error kept for display next to the control. */
export function useAction(): { busy: boolean; error: unknown; run: (work: () => Promise<unknown>) => Promise<boolean>; clear: () => void } {
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
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} must be a JSON object, e.g. {"name": "value"}.`);
  return value as Record<string, unknown>;
}

/** A labelled one-line text input (the label's text is its accessible name). */
export function TextField({ label, value, onChange, required, placeholder }: { label: string; value: string; onChange: (value: string) => void; required?: boolean; placeholder?: string }) {
  return (
    <label>
      {label}
      <input value={value} required={required} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}
