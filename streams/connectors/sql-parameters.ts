/**
 * Named parameters (`:well_id`) in an exposure's SQL: found by a small lexer that skips
 * string literals, quoted identifiers, dollar quotes, comments and `::` casts, then replaced
 * by the engine's positional placeholder (`$1` for PostgreSQL, `:1` for Snowflake) so the
 * values are bound by the driver, never spliced into the text. `map` turns an offset in the
 * rewritten text back into one in the author's text, for editor error positions.
 */

export type Dialect = 'postgresql' | 'snowflake';

export interface ParameterScan {
  text: string;
  /** Distinct names in order of first use; placeholder n is names[n-1]. */
  names: string[];
  occurrences: { name: string; offset: number }[];
  /** Positional placeholders the author wrote (`$1`, `?`): refused, parameters are named. */
  positional: { token: string; offset: number }[];
  map(rewrittenOffset: number): number;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_$]/;

export function scanParameters(sql: string, dialect: Dialect): ParameterScan {
  const names: string[] = [];
  const occurrences: ParameterScan['occurrences'] = [];
  const positional: ParameterScan['positional'] = [];
  const shifts: { at: number; delta: number }[] = [];
  let out = '';
  let i = 0;
  let delta = 0;
  const n = sql.length;
  const copyUntil = (end: number) => {
    out += sql.slice(i, end);
    i = end;
  };
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      copyUntil(end === -1 ? n : end);
    } else if (c === '/' && next === '/' && dialect === 'snowflake') {
      const end = sql.indexOf('\n', i);
      copyUntil(end === -1 ? n : end);
    } else if (c === '/' && next === '*') {
      let depth = 0;
      let j = i;
      while (j < n) {
        if (sql[j] === '/' && sql[j + 1] === '*') {
          depth++;
          j += 2;
        } else if (sql[j] === '*' && sql[j + 1] === '/') {
          depth--;
          j += 2;
          if (depth === 0 || dialect === 'snowflake') break;
        } else j++;
      }
      copyUntil(Math.min(j, n));
    } else if (c === "'") {
      const backslashes =
        dialect === 'snowflake' || (i > 0 && /[eE]/.test(sql[i - 1]) && !IDENT_PART.test(sql[i - 2] ?? ' '));
      let j = i + 1;
      while (j < n) {
        if (backslashes && sql[j] === '\\') j += 2;
        else if (sql[j] === "'" && sql[j + 1] === "'") j += 2;
        else if (sql[j] === "'") break;
        else j++;
      }
      copyUntil(Math.min(j + 1, n));
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && !(sql[j] === '"' && sql[j + 1] !== '"')) j += sql[j] === '"' ? 2 : 1;
      copyUntil(Math.min(j + 1, n));
    } else if (c === '$' && /[A-Za-z_$]/.test(next ?? '') && !IDENT_PART.test(sql[i - 1] ?? ' ')) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        copyUntil(end === -1 ? n : end + tag[0].length);
      } else copyUntil(i + 1);
    } else if (c === '$' && /[0-9]/.test(next ?? '') && !IDENT_PART.test(sql[i - 1] ?? ' ')) {
      const token = /^\$[0-9]+/.exec(sql.slice(i))![0];
      positional.push({ token, offset: i });
      copyUntil(i + token.length);
    } else if (c === '?' && dialect === 'snowflake') {
      positional.push({ token: '?', offset: i });
      copyUntil(i + 1);
    } else if (c === ':' && next === ':') {
      copyUntil(i + 2);
    } else if (c === ':' && IDENT_START.test(next ?? '') && !/[A-Za-z0-9_\])"]/.test(sql[i - 1] ?? ' ')) {
      // `d:field` (a Snowflake variant path) has an identifier right before the colon.
      const name = /^:([A-Za-z_][A-Za-z0-9_]*)/.exec(sql.slice(i))![1];
      occurrences.push({ name, offset: i });
      let index = names.indexOf(name);
      if (index === -1) index = names.push(name) - 1;
      const placeholder = dialect === 'postgresql' ? `$${index + 1}` : `:${index + 1}`;
      out += placeholder;
      i += name.length + 1;
      delta += placeholder.length - (name.length + 1);
      shifts.push({ at: out.length, delta });
    } else copyUntil(i + 1);
  }
  return {
    text: out,
    names,
    occurrences,
    positional,
    map(offset) {
      let shift = 0;
      for (const s of shifts) if (s.at <= offset) shift = s.delta;
      return Math.max(0, Math.min(sql.length, offset - shift));
    },
  };
}
