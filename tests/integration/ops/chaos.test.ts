import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * The fault-injection suite as `npm test` runs it: 90 seconds of faults against two instances
 * with a fresh seed each run (printed, so a failing schedule can be replayed), and every
 * invariant of docs/chaos.md checked by the suite itself.
 */
describe('the chaos suite (npm run chaos)', function () {
  this.timeout(8 * 60_000);

  it('loses no acknowledged write and leaves every read model equal to its rebuild under 90 s of faults', async () => {
    const seed = Number(process.env.CHAOS_SEED ?? randomInt(0, 2 ** 31));
    const output = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'ops/chaos/run.ts', '--seconds', '90', '--seed', String(seed)],
        {
          cwd: ROOT,
          env: process.env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let text = '';
      child.stdout.on('data', (chunk) => (text += chunk));
      child.stderr.on('data', (chunk) => (text += chunk));
      child.on('exit', (code) => resolve({ code, text }));
    });
    const summary = output.text
      .split('\n')
      .filter((line) => line.startsWith('chaos: '))
      .pop();
    expect(summary, output.text).to.match(
      /^chaos: \d+ faults, \d+ acknowledged writes, 0 lost, read models equal to rebuild: yes$/,
    );
    expect(output.code, output.text).to.equal(0);
  });
});
