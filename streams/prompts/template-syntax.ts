import { parse, tokenize } from '@huggingface/jinja';

/**
 * A Jinja-style template read tag by tag, with line and column for every tag: the engine
 * (@huggingface/jinja) reports no positions, so its parser is run on each tag alone to
 * place an error, and block nesting is checked here.
 */
export interface Tag {
  kind: 'output' | 'statement' | 'comment';
  /** The statement keyword (`if`, `for`, `endfor`…); '' for output and comments. */
  keyword: string;
  /** The text between the delimiters, whitespace-control dashes removed. */
  inner: string;
  line: number;
  column: number;
}

export interface Positioned {
  message: string;
  line: number;
  column: number;
}

export class TemplateSyntaxError extends Error {
  constructor(readonly problems: Positioned[]) {
    super(problems.map((p) => `line ${p.line}, column ${p.column}: ${p.message}`).join('; '));
  }
}

const CLOSERS = { '{{': '}}', '{%': '%}', '{#': '#}' } as const;

/**
 * 1-based line and column of offsets in one text: line starts are indexed once and each
 * lookup is a binary search, so a body with thousands of tags or findings stays linear.
 */
export function positionsIn(source: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo] + 1 };
  };
}

/** The closing delimiter's offset, skipping quoted strings inside expressions. */
function findClose(source: string, from: number, closer: string, quoted: boolean): number {
  let quote: string | null = null;
  for (let i = from; i < source.length; i++) {
    const c = source[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (quoted && (c === '"' || c === "'")) quote = c;
    else if (c === closer[0] && source[i + 1] === closer[1]) return i;
  }
  return -1;
}

export function scanTags(source: string): { tags: Tag[]; problems: Positioned[] } {
  const tags: Tag[] = [];
  const problems: Positioned[] = [];
  const positionOf = positionsIn(source);
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf('{', i);
    if (open < 0) break;
    const opener = source.slice(open, open + 2) as keyof typeof CLOSERS;
    if (!(opener in CLOSERS)) {
      i = open + 1;
      continue;
    }
    const kind = opener === '{{' ? 'output' : opener === '{%' ? 'statement' : 'comment';
    const close = findClose(source, open + 2, CLOSERS[opener], kind !== 'comment');
    const { line, column } = positionOf(open);
    if (close < 0) {
      problems.push({ message: `unclosed ${opener} tag`, line, column });
      break;
    }
    const inner = source
      .slice(open + 2, close)
      .replace(/^[-+]/, '')
      .replace(/-$/, '')
      .trim();
    const keyword = kind === 'statement' ? (/^[A-Za-z_]\w*/.exec(inner)?.[0] ?? '') : '';
    tags.push({ kind, keyword, inner, line, column });
    i = close + 2;
  }
  return { tags, problems };
}

/** Statement keywords the safe subset allows, with how each nests. */
const OPENERS: Record<string, string> = { if: 'endif', for: 'endfor' };
const MIDDLES: Record<string, string[]> = { elif: ['if'], else: ['if', 'for'] };
const LOOP_ONLY = new Set(['break', 'continue']);
const MAX_BLOCK_DEPTH = 50;

/** Tags outside the safe subset: they reach other templates, define code, or bypass escaping. */
export const FORBIDDEN_TAGS = new Set([
  'include',
  'import',
  'from',
  'extends',
  'block',
  'endblock',
  'macro',
  'endmacro',
  'call',
  'endcall',
  'filter',
  'endfilter',
  'raw',
  'endraw',
  'with',
  'endwith',
  'generation',
  'endgeneration',
  'do',
  'autoescape',
  'endautoescape',
]);

/**
 * Checks nesting and parses each tag alone with the engine's parser. Forbidden tags are
 * reported separately (`subset`), so a template using them is syntactically readable but
 * refused by the subset check.
 */
export function checkSyntax(source: string): { tags: Tag[]; syntax: Positioned[]; subset: Positioned[] } {
  const { tags, problems: syntax } = scanTags(source);
  const subset: Positioned[] = [];
  const stack: Tag[] = [];
  for (const tag of tags) {
    if (tag.kind === 'comment') continue;
    if (tag.kind === 'output') {
      const error = parseError(`{{ ${tag.inner} }}`);
      if (error) syntax.push({ message: `in {{ ${tag.inner} }}: ${error}`, line: tag.line, column: tag.column });
      continue;
    }
    const { keyword } = tag;
    if (FORBIDDEN_TAGS.has(keyword)) {
      subset.push({
        message: `the {% ${keyword} %} tag is outside the safe subset`,
        line: tag.line,
        column: tag.column,
      });
      continue;
    }
    if (
      (keyword in OPENERS || (keyword === 'set' && !/^set\s+[^=]+=/.test(tag.inner))) &&
      stack.length >= MAX_BLOCK_DEPTH
    ) {
      syntax.push({ message: `blocks nested deeper than ${MAX_BLOCK_DEPTH}`, line: tag.line, column: tag.column });
      stack.length = 0;
      break;
    }
    if (keyword in OPENERS) {
      const error = parseError(`{% ${tag.inner} %}{% ${OPENERS[keyword]} %}`);
      if (error) syntax.push({ message: `in {% ${tag.inner} %}: ${error}`, line: tag.line, column: tag.column });
      stack.push(tag);
    } else if (keyword in MIDDLES) {
      const top = stack[stack.length - 1];
      if (!top || !MIDDLES[keyword].includes(top.keyword))
        syntax.push({
          message: `{% ${keyword} %} outside ${MIDDLES[keyword].map((k) => `{% ${k} %}`).join(' or ')}`,
          line: tag.line,
          column: tag.column,
        });
      else if (keyword === 'elif') {
        const error = parseError(`{% if ${tag.inner.slice(4)} %}{% endif %}`);
        if (error) syntax.push({ message: `in {% ${tag.inner} %}: ${error}`, line: tag.line, column: tag.column });
      }
    } else if (keyword.startsWith('end') && (keyword === 'endif' || keyword === 'endfor' || keyword === 'endset')) {
      const top = stack.pop();
      const expected = top ? (top.keyword === 'set' ? 'endset' : OPENERS[top.keyword]) : null;
      if (expected !== keyword)
        syntax.push({
          message: top
            ? `{% ${keyword} %} closes {% ${top.keyword} %} opened at line ${top.line}`
            : `{% ${keyword} %} without an opening tag`,
          line: tag.line,
          column: tag.column,
        });
    } else if (keyword === 'set') {
      if (/^set\s+[^=]+=/.test(tag.inner)) {
        const error = parseError(`{% ${tag.inner} %}`);
        if (error) syntax.push({ message: `in {% ${tag.inner} %}: ${error}`, line: tag.line, column: tag.column });
      } else stack.push(tag);
    } else if (LOOP_ONLY.has(keyword)) {
      if (!stack.some((t) => t.keyword === 'for'))
        syntax.push({ message: `{% ${keyword} %} outside a loop`, line: tag.line, column: tag.column });
    } else {
      syntax.push({ message: `unknown tag {% ${keyword || tag.inner} %}`, line: tag.line, column: tag.column });
    }
  }
  for (const open of stack)
    syntax.push({ message: `{% ${open.keyword} %} is never closed`, line: open.line, column: open.column });
  return { tags, syntax, subset };
}

function parseError(snippet: string): string | null {
  try {
    parse(tokenize(snippet));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
