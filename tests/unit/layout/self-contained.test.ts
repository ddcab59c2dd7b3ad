import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The repository speaks for itself: no comment, doc or test cites a spec section, a design
 * note or an issue number that the repository does not hold ("spec 2 §4", "DESIGN §9",
 * "issue 27", "DOMAIN.md"). A reason is written where it applies, or it links a `docs/` page
 * or an OpenAPI operationId. Sections of the regulations themselves (16 TAC §3.32, Texas
 * Government Code §662.003) are facts of the domain, not pointers out of the repository.
 */
const ROOT = path.resolve(__dirname, '../../..');
const PLACES = ['src', 'commands', 'projections', 'queries', 'streams', 'ops', 'console', 'docs', 'tests', 'README.md'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.data']);
const TEXT = /\.(ts|tsx|js|mjs|cjs|css|html|md|json|ya?ml|sql)$/;

// Pieces joined at run time, so this file does not cite what it forbids.
const SECTION = '\u00a7';
const OUTSIDE = new RegExp(
  [
    `issue [0-9]+`,
    `spec [0-9]`,
    `design ${SECTION}`,
    `document [123]\\b`,
    `${SECTION} ?[0-9]`,
    `(design|domain|style)\\.md`,
  ].join('|'),
  'i',
);
/** Sections of the regulations (16 TAC chapter 3, …) and standards the domain rests on, removed before the check. */
const LEGAL = new RegExp(`${SECTION}\\s?(3\\\\*\\.|662\\.003|311\\.014|18\\.8\\.30)`, 'g');

function textFiles(place: string): string[] {
  const full = path.join(ROOT, place);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full).flatMap((entry) => {
    if (SKIPPED_FOLDERS.has(entry)) return [];
    const child = path.join(full, entry);
    if (statSync(child).isDirectory()) return textFiles(path.relative(ROOT, child));
    // This file names what it forbids, to show the check catches it.
    return TEXT.test(entry) && child !== __filename ? [child] : [];
  });
}

/** Every line of the given places that points outside the repository, as `path:line: text`. */
function outsideCitations(places: string[] = PLACES): string[] {
  return places.flatMap((place) =>
    textFiles(place).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${path.relative(ROOT, file)}:${i + 1}` }))
        .filter(({ line }) => OUTSIDE.test(line.replace(LEGAL, '')))
        .map(({ line, at }) => `${at}: ${line.trim()}`),
    ),
  );
}

describe('layout: the repository speaks for itself', () => {
  it('no comment, doc or test name cites a spec section, a design note or an issue number', () => {
    expect(outsideCitations()).to.deep.equal([]);
  });

  it("the check finds such a citation, and lets a regulation's own section through", () => {
    const cite = (text: string) => OUTSIDE.test(text.replace(LEGAL, ''));
    expect(cite(`// Role gates (spec 1 ${SECTION}5).`)).to.equal(true);
    expect(cite('/** Group commit (issue 27 item 7). */')).to.equal(true);
    expect(cite(`* Least privilege (DESIGN ${SECTION}7).`)).to.equal(true);
    expect(cite('* facts in DOMAIN.md')).to.equal(true);
    expect(cite(`'16 TAC ${SECTION}3.32 (Statewide Rule 32)'`)).to.equal(false);
    expect(cite(`the holidays of Government Code ${SECTION}662.003(b)`)).to.equal(false);
    expect(cite('* a newcomer reads the docs/ page instead')).to.equal(false);
  });
});
