import { expect } from 'chai';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * `docs/recipes.md` names files to touch; a recipe that names a file that moved or never
 * existed sends a newcomer looking for nothing. Every backticked repository path in it must
 * exist. A placeholder (`<context>`, `<name>`) stands for a file one adds: `<context>` is
 * checked with a real context substituted, and anything after another placeholder (or a `*`)
 * is the new file, so only the folder before it must exist.
 */
const ROOT = path.resolve(__dirname, '../../..');
const RECIPES = path.join(ROOT, 'docs/recipes.md');
const TOP = ['src', 'commands', 'projections', 'queries', 'streams', 'ops', 'console', 'docs', 'tests'];
/** A context every placeholder path is checked against; it has every layer a recipe names. */
const SAMPLE_CONTEXT = 'approvals';

/** The backticked spans of a markdown text that are paths into the repository. */
function recipePaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]);
  return [...new Set(spans.filter((s) => s === 'README.md' || TOP.some((top) => s.startsWith(`${top}/`))))];
}

/** Where a recipe path must exist: `<context>` filled in, cut before any other placeholder or `*`. */
function checkedPath(recipePath: string): string {
  const filled = recipePath.split('<context>').join(SAMPLE_CONTEXT);
  const open = filled.search(/[<*]/);
  const known = open === -1 ? filled : filled.slice(0, filled.lastIndexOf('/', open) + 1);
  return known.replace(/\/$/, '');
}

describe('layout: the paths docs/recipes.md names exist', () => {
  const paths = recipePaths(readFileSync(RECIPES, 'utf8'));

  it('names files to touch (the extraction finds them)', () => {
    expect(paths.length).to.be.greaterThan(40);
    expect(paths).to.include('streams/approvals/approval.ts');
    expect(paths).to.include('projections/<context>/<name>.ts');
  });

  it('every path exists, placeholders checked with a real context', () => {
    const missing = paths.filter((p) => !existsSync(path.join(ROOT, checkedPath(p))));
    expect(missing).to.deep.equal([]);
  });

  it('a path with a placeholder file is checked up to its folder, which must be a folder', () => {
    expect(checkedPath('commands/<context>/<name>.ts')).to.equal('commands/approvals');
    expect(checkedPath('src/contexts/<context>/http.ts')).to.equal('src/contexts/approvals/http.ts');
    expect(checkedPath('tests/unit/<context>/')).to.equal('tests/unit/approvals');
    expect(checkedPath('projections/<context>/*.ts')).to.equal('projections/approvals');
    expect(statSync(path.join(ROOT, checkedPath('console/src/pages/<Name>.tsx'))).isDirectory()).to.equal(true);
    expect(existsSync(path.join(ROOT, checkedPath('commands/<context>/no-such-folder/<name>.ts')))).to.equal(false);
  });
});
