import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The layout's rules, checked on the source itself (see docs/architecture.md, "Overview"). Every
 * relative import counts, type-only ones included (`import type`, `{ type X }`, `import('…')`
 * types): a type import is still a dependency a reader must follow, and a type-only cycle is
 * still a cycle. Only the browser rule also follows what the bundle loads at run time.
 */
const ROOT = path.resolve(__dirname, '../../..');
const FOLDERS = ['src', 'streams', 'commands', 'projections', 'queries', 'ops', 'console/src'];
const EXTENSIONS = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'];

/** The one folder of pure code the browser bundle may share with the server. */
const CONSOLE_SHARED = 'streams/monitoring';

interface Edge {
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'node_modules' || entry === 'dist' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry) && !entry.endsWith('.d.ts') ? [full] : [];
  });
}

function resolve(file: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(file), spec.replace(/\.js$/, ''));
  return EXTENSIONS.map((e) => base + e).find((candidate) => {
    try {
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * The relative modules a file names: static imports and re-exports (multi-line ones too), side-effect
 * imports, `import x = require(…)`, `import(…)` and `require(…)`. An import is type-only when it says
 * `import type` / `export type`, or when every name in its braces is marked `type`.
 */
function importsOf(file: string, source: string): Edge[] {
  const found: { spec: string; typeOnly: boolean }[] = [];
  const clause = /^[ \t]*(import|export)\s+(type\s+)?([\w\s{},*$]*?)\s*from\s*['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(clause)) {
    const names = /^\{([^}]*)\}$/.exec(m[3].trim());
    const listed =
      names?.[1]
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean) ?? [];
    const typeOnly = !!m[2] || (listed.length > 0 && listed.every((n) => n.startsWith('type ')));
    found.push({ spec: m[4], typeOnly });
  }
  for (const m of source.matchAll(/^[ \t]*import\s+['"]([^'"]+)['"]/gm)) found.push({ spec: m[1], typeOnly: false });
  for (const m of source.matchAll(/^[ \t]*import\s+(type\s+)?[\w$]+\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
    found.push({ spec: m[2], typeOnly: !!m[1] });
  }
  for (const m of source.matchAll(/(\btypeof\s+)?\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    found.push({ spec: m[2], typeOnly: !!m[1] });
  }
  return found.flatMap(({ spec, typeOnly }) => {
    if (!spec.startsWith('.')) return [];
    const to = resolve(file, spec);
    return to ? [{ to, typeOnly }] : [];
  });
}

function importGraph(): Map<string, Edge[]> {
  const graph = new Map<string, Edge[]>();
  for (const folder of FOLDERS) {
    for (const file of sourceFiles(path.join(ROOT, folder)))
      graph.set(file, importsOf(file, readFileSync(file, 'utf8')));
  }
  return graph;
}

/** Tarjan's strongly connected components: every component of more than one file is a cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(path.relative(ROOT, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');
const under = (file: string, folder: string) => rel(file).startsWith(folder + '/');
/** `streams/monitoring/x.ts` → `monitoring`; `src/contexts/graph/http.ts` → `graph`. */
const contextOf = (file: string, top: string) =>
  under(file, top)
    ? rel(file)
        .slice(top.length + 1)
        .split('/')[0]
    : undefined;
const LAYERS = ['src/contexts', 'streams', 'commands', 'projections', 'queries'];
const isSeed = (file: string) => /(^|\/)seeds?(\/|[-.])|(^|\/)seed-[^/]*$/.test(rel(file));

/** Every import `from` a file the predicate selects that breaks `allowed`, as "from -> to". */
function breaking(
  graph: Map<string, Edge[]>,
  from: (file: string) => boolean,
  allowed: (file: string, dep: string) => boolean,
): string[] {
  return [...graph]
    .filter(([file]) => from(file))
    .flatMap(([file, deps]) => deps.filter((d) => !allowed(file, d.to)).map((d) => `${rel(file)} -> ${rel(d.to)}`))
    .sort();
}

describe('the import graph', () => {
  const graph = importGraph();

  it('has no cycles, type-only imports included', () => {
    const plain = new Map([...graph].map(([file, deps]) => [file, deps.map((d) => d.to)]));
    expect(cycles(plain)).to.deep.equal([]);
  });

  it('keeps the kernel at the bottom: src/platform imports nothing outside src/platform', () => {
    expect(
      breaking(
        graph,
        (f) => under(f, 'src/platform'),
        (_, d) => under(d, 'src/platform'),
      ),
    ).to.deep.equal([]);
  });

  it('keeps the streams pure: streams/<ctx> imports only src/platform and streams/<ctx>', () => {
    const ok = (f: string, d: string) =>
      under(d, 'src/platform') || contextOf(d, 'streams') === contextOf(f, 'streams');
    expect(breaking(graph, (f) => under(f, 'streams'), ok)).to.deep.equal([]);
  });

  it('keeps the write and read sides below the shells: commands, projections and queries never import src/contexts', () => {
    const from = (f: string) => ['commands', 'projections', 'queries'].some((top) => under(f, top));
    expect(breaking(graph, from, (_, d) => !under(d, 'src/contexts'))).to.deep.equal([]);
  });

  it("lets one context's shell use another's only through src/contexts/<other>/index.ts", () => {
    const ok = (f: string, d: string) => {
      const other = contextOf(d, 'src/contexts');
      return (
        other === undefined || other === contextOf(f, 'src/contexts') || rel(d) === `src/contexts/${other}/index.ts`
      );
    };
    expect(breaking(graph, (f) => under(f, 'src/contexts'), ok)).to.deep.equal([]);
  });

  it("composes seeds where contexts meet: only src/contexts.ts and ops/ import another context's seed, and a seed imports no other context", () => {
    const meeting = (f: string) => rel(f) === 'src/contexts.ts' || under(f, 'ops');
    const contextOfAny = (f: string) => LAYERS.map((top) => contextOf(f, top)).find(Boolean);
    const importers = breaking(
      graph,
      (f) => !meeting(f),
      (f, d) => !isSeed(d) || contextOfAny(d) === contextOfAny(f),
    );
    const reach = breaking(
      graph,
      (f) => isSeed(f) && !meeting(f),
      (f, d) => under(d, 'src/platform') || contextOfAny(d) === contextOfAny(f),
    );
    expect([...importers, ...reach]).to.deep.equal([]);
  });

  it(`keeps the browser bundle to console/ and the declared shared folder ${CONSOLE_SHARED}/`, () => {
    const direct = breaking(
      graph,
      (f) => under(f, 'console'),
      (_, d) => under(d, 'console') || under(d, CONSOLE_SHARED),
    );
    // What esbuild loads: value imports followed from the console; all of it must be console/ or pure shared code.
    const loaded = new Set<string>();
    const queue = [...graph.keys()].filter((f) => under(f, 'console'));
    while (queue.length) {
      const file = queue.pop()!;
      for (const d of graph.get(file) ?? []) if (!d.typeOnly && !loaded.has(d.to)) (loaded.add(d.to), queue.push(d.to));
    }
    const strays = [...loaded]
      .filter((f) => !under(f, 'console') && !under(f, CONSOLE_SHARED))
      .map((f) => `bundle loads ${rel(f)}`);
    expect([...direct, ...strays.sort()]).to.deep.equal([]);
  });

  it('finds a cycle when one is there (the checker itself)', () => {
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).to.deep.equal([['a', 'b', 'c']]);
  });

  it('counts type-only imports, multi-line ones and re-exports (the scanner itself)', () => {
    const file = path.join(ROOT, 'src/platform/x.ts');
    const source = [
      "import type { A } from './domain-errors';",
      "import {\n  type B,\n  type C,\n} from './config';",
      "export { D } from './context-module';",
      "import 'node:fs';",
      "type E = import('./platform').Platform;",
    ].join('\n');
    expect(importsOf(file, source).map((e) => [rel(e.to), e.typeOnly])).to.deep.equal([
      ['src/platform/domain-errors.ts', true],
      ['src/platform/config.ts', true],
      ['src/platform/context-module.ts', false],
      ['src/platform/platform.ts', false],
    ]);
  });
});
