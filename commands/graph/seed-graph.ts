import { z } from 'zod';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { generatePortfolio, type PortfolioOptions } from './seed/texas-portfolio';
import { countVertices } from '../../queries/graph/entities';
import { namespaceOf } from '../../streams/graph/names';
import type { GraphActor } from './actor';
import { importGraph } from './import-graph';

export const SeedBody = z
  .object({
    wells: z.number().int().min(1).max(100_000).default(200),
    seed: z.number().int().min(0).max(2_147_483_647).default(42),
    as_of: z
      .string()
      .max(7)
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'YYYY-MM')
      .default('2026-01'),
  })
  .strict();
export type SeedOptions = z.infer<typeof SeedBody>;

/**
 * Loads the Texas sample portfolio into the caller's (empty) graph as one bulk import.
 * Development only: in production the route does not exist (404). A graph that already
 * holds vertices is refused (409) so a second seed never duplicates API numbers.
 */
export async function seedGraph(
  deps: Pick<PlatformDeps, 'store' | 'knex' | 'projections' | 'config'>,
  actor: GraphActor,
  options: SeedOptions,
  rules: Pick<PortfolioOptions, 'formPrDue'>,
) {
  if (deps.config.production) throw new NotFound('No route for POST /graph/seed');
  const existing = await countVertices(deps.knex, namespaceOf(actor.tenantId));
  if (existing > 0)
    throw new Conflict(`the graph already holds ${existing} vertices; seed data loads only into an empty graph`);
  const started = process.hrtime.bigint();
  const portfolio = generatePortfolio({ wells: options.wells, seed: options.seed, asOf: options.as_of, ...rules });
  const generated = process.hrtime.bigint();
  const result = await importGraph(deps, actor, {
    source: 'seed',
    description: `Texas sample portfolio: ${options.wells} wells (seed ${options.seed}, as of ${options.as_of})`,
    ...portfolio,
  });
  const done = process.hrtime.bigint();
  const seconds = Number(done - generated) / 1e9;
  const entities = result.vertices + result.edges;
  return {
    ...result,
    position: undefined,
    wells: options.wells,
    entities,
    generate_seconds: Number(generated - started) / 1e9,
    import_seconds: seconds,
    entities_per_second: Math.round(entities / Math.max(seconds, 1e-9)),
  };
}
