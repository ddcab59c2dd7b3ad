import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The layout's two rules, checked on the source itself: no import cycles, and the
 * kernel (`src/platform/`) stands on no context. Type-only imports are erased at run time, so
 * they neither load a module nor close a cycle; they are left out of the graph.
 */
const ROOT = path.resolve(__dirname, '../../..');
const FOLDERS = ['src', 'streams', 'commands', 'projections', 'queries', 'ops'];
const EXTENSIONS = ['', '.ts', '.tsx', '/index.ts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry) ? [full] : [];
  });
}

/** Relative modules a file loads when it runs: static imports and re-exports, not `import type`. */
function valueImports(file: string, source: string): string[] {
  const specs: string[] = [];
  for (const m of source.matchAll(/^(import|export)\s+(type\s+)?([^'";]*?)\s*from\s+'(\.[^']+)'/gm)) {
    if (m[2]) continue;
    const names = /^\{([^}]*)\}$/.exec(m[3].trim());
    if (names && names[1].split(',').every((n) => !n.trim() || n.trim().startsWith('type '))) continue;
    specs.push(m[4]);
  }
  for (const m of source.matchAll(/^import\s+'(\.[^']+)'/gm)) specs.push(m[1]);
  return specs.flatMap((spec) => {
    const base = path.resolve(path.dirname(file), spec);
    const hit = EXTENSIONS.map((e) => base + e).find((candidate) => {
      try {
        return statSync(candidate).isFile();
      } catch {
        return false;
      }
    });
    return hit ? [hit] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of FOLDERS) for (const file of sourceFiles(path.join(ROOT, folder))) graph.set(file, valueImports(file, readFileSync(file, 'utf8')));
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

describe('the import graph', () => {
  const graph = importGraph();

  it('has no cycles (type-only imports aside)', () => {
    expect(cycles(graph)).to.deep.equal([]);
  });

  it('keeps the kernel below the contexts: src/platform imports no context, stream, command, projection or query', () => {
    const upward = [...graph]
      .filter(([file]) => file.startsWith(path.join(ROOT, 'src/platform') + path.sep))
      .flatMap(([file, deps]) => deps.filter((d) => !d.startsWith(path.join(ROOT, 'src/platform') + path.sep)).map((d) => `${path.relative(ROOT, file)} -> ${path.relative(ROOT, d)}`));
    expect(upward).to.deep.equal([]);
  });

  it('finds a cycle when one is there (the checker itself)', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).to.deep.equal([['a', 'b', 'c']]);
  });
});
