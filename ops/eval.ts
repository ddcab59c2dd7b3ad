import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { Presets, SingleBar } from 'cli-progress';
import { loadConfig } from '../src/platform/config';
import { createLogger } from '../src/platform/infra/logger';
import { startPlatform } from '../src/platform/platform';
import { contexts } from '../src/contexts';
import { resolveEffectiveSettings } from '../src/contexts/settings/effective-settings';
import { modelJudge, tokenOverlapJudge } from '../src/contexts/evaluation/judge';
import { createModelRouter } from '../src/platform/infra/llm/model-router';
import { EVAL_RUNNER_ID, frozenReplayer, liveReplayer } from '../src/contexts/evaluation/replay';
import { formatReport, runEvaluation } from '../src/contexts/evaluation/runner';
import { DEFAULT_TENANT_ID } from '../streams/identity/tenant';

function gitSha(): string | null {
  try {
    return (
      execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() ||
      null
    );
  } catch {
    return null;
  }
}

/**
 * `npm run ops -- eval run [--tag] [--model]`: local only, never routed. Runs the
 * platform's code in this process (listeners on loopback, ephemeral ports) against the
 * configured database, replays the tenant's captured turns and prints the table.
 */
export function registerEvalCommands(program: Command): void {
  const evalCommand = program.command('eval').description('replay captured turns and grade them (local only)');
  evalCommand
    .command('run')
    .description(
      'replay the captured turns from their frozen input against the current code and model; record the run and print it against the baseline',
    )
    .option('--tag <tag>', 'only captures with this category_tag')
    .option('--model <id>', "the model to replay with (default: the tenant's default model)")
    .option('--tenant <id>', 'tenant whose captures to replay', DEFAULT_TENANT_ID)
    .option('--threshold <n>', 'judge score at or above which an expert case passes', '0.5')
    .option('--frozen', 'grade the recorded outputs instead of re-executing (no model calls)')
    .option(
      '--judge-model <id>',
      'a model from /settings/model-options as the judge of expert cases (default: the builtin deterministic token-overlap judge)',
    )
    .action(
      async (options: {
        tag?: string;
        model?: string;
        tenant: string;
        threshold: string;
        frozen?: boolean;
        judgeModel?: string;
      }) => {
        const threshold = Number(options.threshold);
        if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)
          throw new Error('--threshold must be a number from 0 to 1');
        const base = loadConfig();
        const config = { ...base, http: { ...base.http, port: 0, internalPort: 0, host: '127.0.0.1' } };
        const platform = await startPlatform({ config, contexts, logger: createLogger('warn') });
        const bar = process.stderr.isTTY
          ? new SingleBar(
              { format: 'replaying [{bar}] {value}/{total} cases {verdict}', stream: process.stderr, hideCursor: true },
              Presets.shades_classic,
            )
          : null;
        try {
          const deps = platform.deps;
          const model =
            options.model ??
            (await resolveEffectiveSettings(deps, { tenantId: options.tenant, userId: EVAL_RUNNER_ID })).model;
          const runId = randomUUID();
          let started = false;
          const report = await runEvaluation(deps, {
            tenantId: options.tenant,
            tag: options.tag,
            model,
            judgeThreshold: threshold,
            gitSha: gitSha(),
            judge:
              options.judgeModel && !options.judgeModel.startsWith('builtin/')
                ? modelJudge(createModelRouter(deps.config.llm), options.judgeModel)
                : tokenOverlapJudge,
            runId,
            replayer: options.frozen ? frozenReplayer : liveReplayer(deps, runId),
            onProgress: (done, total, result) => {
              if (!bar) return void process.stderr.write(`case ${done}/${total}: ${result.verdict}\n`);
              if (!started) {
                bar.start(total, 0, { verdict: '' });
                started = true;
              }
              bar.update(done, { verdict: result.verdict });
            },
          });
          bar?.stop();
          console.log(formatReport(report));
        } finally {
          bar?.stop();
          await platform.stop();
        }
      },
    );
}
