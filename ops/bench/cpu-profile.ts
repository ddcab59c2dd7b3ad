import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `tsx ops/bench/cpu-profile.ts <file.cpuprofile> [top]`: the frames a `node --cpu-prof`
 * profile spent its time in — self time by function, and inclusive time by function of this
 * repository (where a request's time goes, callees included) — as percentages of the sampled
 * time, idle excluded. How the figures in docs/benchmarks.md were summarised.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const root = path.resolve(__dirname, '../..');

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace('file://', '').replace(`${root}/`, '');
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
}

export function summarise(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const idle = new Set(['(idle)', '(program)', '(garbage collector)']);
  let busy = 0;
  const selfByName = new Map<string, number>();
  const inclusiveByName = new Map<string, number>();
  for (const [id, time] of self) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += time;
    const name = frameName(node);
    selfByName.set(name, (selfByName.get(name) ?? 0) + time);
    // Each of this repository's functions on the stack is charged once per sample.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      if (
        idle.has(frame.callFrame.functionName) ||
        !frame.callFrame.url.includes(root) ||
        frame.callFrame.url.includes('node_modules')
      )
        continue;
      const ownName = frameName(frame);
      if (seen.has(ownName)) continue;
      seen.add(ownName);
      inclusiveByName.set(ownName, (inclusiveByName.get(ownName) ?? 0) + time);
    }
  }
  const table = (rows: Map<string, number>) =>
    [...rows]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, time]) => `${((100 * time) / busy).toFixed(1).padStart(5)} %  ${name}`)
      .join('\n');
  return `busy ${(busy / 1e6).toFixed(1)} s sampled\n\nself time:\n${table(selfByName)}\n\ninclusive time, this repository's frames:\n${table(inclusiveByName)}\n`;
}

if (require.main === module) {
  const [file, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx ops/bench/cpu-profile.ts <file.cpuprofile> [top]');
  process.stdout.write(summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(top ?? 25)));
}
