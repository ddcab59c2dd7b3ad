import type { Command } from 'commander';
import { formPrDue } from '../commands/compliance/packs/production';
import { installOilgasVertical } from '../commands/graph/install-vertical';
import { seedGraph, SeedBody } from '../commands/graph/seed-graph';
import { graphContext } from '../src/contexts/graph/module';
import { loadConfig } from '../src/platform/config';
import { SYSTEM_USER_ID } from '../streams/identity/system-accounts';
import { DEFAULT_TENANT_ID } from '../streams/identity/tenant';
import { withOfflineProjections } from './offline';

/**
 * `npm run ops -- seed [--wells N] [--tenant <uuid>]`: the same bulk import as POST
 * /graph/seed, against the configured database (embedded by default), attributed to the
 * system account. The graph read model is brought up to date before and after, so the
 * next start serves the portfolio at once. Refused when NODE_ENV=production.
 */
export function registerSeedCommand(program: Command): void {
  program
    .command('seed')
    .description("load the Texas sample portfolio into a tenant's (empty) knowledge graph; development only")
    .option('--wells <n>', 'number of wells', '200')
    .option('--tenant <uuid>', 'tenant whose graph to seed', DEFAULT_TENANT_ID)
    .option('--seed <n>', 'random seed (same seed, same portfolio)', '42')
    .option('--as-of <YYYY-MM>', 'month of the latest production reports', '2026-01')
    .action(async (options: { wells: string; tenant: string; seed: string; asOf: string }) => {
      const config = loadConfig();
      if (config.production) throw new Error('seed data is for development only (NODE_ENV=production)');
      const seed = SeedBody.parse({ wells: Number(options.wells), seed: Number(options.seed), as_of: options.asOf });
      await withOfflineProjections(
        graphContext.projectors ?? [],
        async ({ infrastructure, runner, handle }) => {
          await installOilgasVertical({ handle, knex: infrastructure.db.knex });
          const result = await seedGraph(
            { store: infrastructure.store, knex: infrastructure.db.knex, projections: runner, config },
            { tenantId: options.tenant, userId: SYSTEM_USER_ID },
            seed,
            { formPrDue },
          );
          console.log(
            Object.entries(result.by_label)
              .map(([label, n]) => `  ${label}: ${n}`)
              .join('\n'),
          );
          console.log(
            `seeded ${result.namespace}: ${result.vertices} vertices and ${result.edges} edges (${result.wells} wells) in ${result.import_seconds.toFixed(2)} s, ${result.entities_per_second} entities/s`,
          );
        },
        { config },
      );
    });
}
