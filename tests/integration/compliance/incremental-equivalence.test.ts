import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { expectCellsOfWholeRun } from '../../support/whole-run';
import { DEFAULT_PACKS } from '../../../commands/compliance/packs';
import { assess } from '../../../commands/compliance/record-assessment';
import { importGraph } from '../../../commands/graph/import-graph';
import { complianceContext } from '../../../src/contexts/compliance/module';
import { graphContext } from '../../../src/contexts/graph/module';
import { addDays } from '../../../src/platform/dates';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * The incremental path gives exactly the cells a whole run gives. fast-check generates a
 * portfolio, a sequence of changes (properties, offset edges, deletions, imports, a filing's
 * re-assessment of one entity, runs and two runs at once) and a walk over the calendar (a
 * second before and at midnight, month ends, Texas holidays, weeks ahead); after every
 * portfolio run the current cells must equal a whole run of the packs on the day judged.
 *
 * Each case seeds a tenant of its own and makes up to ten runs against the embedded database,
 * about two seconds a case: `numRuns` stays at 12 so the property costs well under a minute
 * of CI (raise it locally with FC_RUNS to search harder).
 */
describe('incremental compliance runs against whole runs (property)', function () {
  this.timeout(600_000);
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform({
      contexts: [graphContext, complianceContext],
      env: { RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '100000' },
    });
  });
  after(() => t.close());

  const today = new Date().toISOString().slice(0, 10);
  const [y, m] = today.split('-').map(Number);
  const iso = (yy: number, mm: number, dd: number) => new Date(Date.UTC(yy, mm - 1, dd)).toISOString().slice(0, 10);
  /** Days the walk may stop on: month ends and starts, Texas holidays (state offices closed or staffed), weeks ahead. */
  const stops = [
    ...new Set([
      addDays(today, 1),
      iso(y, m + 1, 0),
      iso(y, m + 1, 1),
      iso(y, m + 2, 0),
      iso(y, 12, 24),
      iso(y, 12, 25),
      iso(y, 12, 26),
      iso(y + 1, 1, 1),
      iso(y + 1, 1, 19),
      iso(y + 1, 3, 2),
      addDays(today, 45),
      addDays(today, 100),
    ]),
  ]
    .filter((d) => d > today)
    .sort();

  type Step =
    | {
        kind: 'set';
        well: number;
        field: 'lease_line_distance_ft' | 'last_w10_test_date' | 'form_pr_period';
        value: number;
      }
    | { kind: 'offset'; from: number; to: number; feet: number }
    | { kind: 'delete'; well: number }
    | { kind: 'import'; feet: number }
    | { kind: 'filing'; well: number }
    | { kind: 'run' }
    | { kind: 'concurrent' }
    | { kind: 'advance'; stop: number; midnight: boolean };

  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      kind: fc.constant('set' as const),
      well: fc.nat(20),
      field: fc.constantFrom(
        'lease_line_distance_ft' as const,
        'last_w10_test_date' as const,
        'form_pr_period' as const,
      ),
      value: fc.integer({ min: 0, max: 800 }),
    }),
    fc.record({
      kind: fc.constant('offset' as const),
      from: fc.nat(20),
      to: fc.nat(20),
      feet: fc.integer({ min: 200, max: 2000 }),
    }),
    fc.record({ kind: fc.constant('delete' as const), well: fc.nat(20) }),
    fc.record({ kind: fc.constant('import' as const), feet: fc.integer({ min: 100, max: 900 }) }),
    fc.record({ kind: fc.constant('filing' as const), well: fc.nat(20) }),
    fc.constant({ kind: 'run' as const }),
    fc.constant({ kind: 'concurrent' as const }),
    fc.record({ kind: fc.constant('advance' as const), stop: fc.nat(stops.length - 1), midnight: fc.boolean() }),
  );

  it('after any changes on any days, the incremental cells equal a whole run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 6 }),
        fc.array(step, { minLength: 2, maxLength: 8 }),
        async (size, steps) => {
          const session = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
          const { tenantId, headers: auth } = session;
          expect((await t.api.post('/graph/seed', { wells: size, as_of: today.slice(0, 7) }, auth)).status).to.equal(
            201,
          );
          let wells = (await t.api.get('/graph/entities/Well?limit=100', auth)).body.entities as Array<{
            id: string;
            entity_id: string;
          }>;
          // The clock the runs read: a second before midnight of a day, or midnight itself.
          let day = today;
          let instant = new Date();
          const deps = { ...t.deps, clock: () => instant };
          const context = { tenantId, actorId: 'property' };
          const pick = (i: number) => wells[i % wells.length];
          const settle = async () =>
            expect(await t.deps.projections.waitFor(await t.deps.store.headPosition(), 30_000)).to.equal(true);

          const portfolioRun = async () => {
            await assess(deps, DEFAULT_PACKS, context);
            await settle();
            const judged = instant.toISOString().slice(0, 10);
            await expectCellsOfWholeRun(t.deps.knex, tenantId, DEFAULT_PACKS, judged, `on ${judged}`);
          };

          await portfolioRun();
          for (const s of steps) {
            if (wells.length === 0 && s.kind !== 'advance' && s.kind !== 'run' && s.kind !== 'concurrent') continue;
            switch (s.kind) {
              case 'set': {
                const value =
                  s.field === 'lease_line_distance_ft'
                    ? 100 + s.value * 2
                    : s.field === 'last_w10_test_date'
                      ? addDays(day, -s.value)
                      : addDays(day, -31 * (s.value % 4)).slice(0, 7);
                await t.api.put(`/graph/entities/Well/${pick(s.well).id}`, { properties: { [s.field]: value } }, auth);
                break;
              }
              case 'offset': {
                const [a, b] = [pick(s.from), pick(s.to)];
                if (a.id === b.id) break;
                await t.api.post(
                  '/graph/edges',
                  {
                    from_label: 'Well',
                    from_id: a.id,
                    to_label: 'Well',
                    to_id: b.id,
                    edge_label: 'OFFSET_TO',
                    properties: { distance_ft: s.feet, same_horizon: 'true' },
                  },
                  auth,
                );
                break;
              }
              case 'delete': {
                const gone = pick(s.well);
                await t.api.delete(`/graph/entities/Well/${gone.id}`, auth);
                wells = wells.filter((w) => w.id !== gone.id);
                break;
              }
              case 'import': {
                const id = randomUUID();
                const entityId = `42-999-${String(Math.floor(Math.random() * 100_000)).padStart(5, '0')}`;
                await importGraph(
                  t.deps,
                  { tenantId, userId: 'property' },
                  {
                    source: 'property-test',
                    description: 'one well',
                    vertices: [
                      {
                        id,
                        label: 'Well',
                        entity_id: entityId,
                        properties: { name: `Imported ${entityId}`, lease_line_distance_ft: String(s.feet) },
                      },
                    ],
                    edges: [],
                  },
                );
                wells = [...wells, { id, entity_id: entityId }];
                break;
              }
              case 'filing': {
                // What an approved filing does: the entity's test date advanced, then that entity re-assessed at once.
                const well = pick(s.well);
                await t.api.put(`/graph/entities/Well/${well.id}`, { properties: { last_w10_test_date: day } }, auth);
                await assess(deps, DEFAULT_PACKS, context, well.entity_id);
                break;
              }
              case 'run':
                await portfolioRun();
                break;
              case 'concurrent':
                await Promise.all([assess(deps, DEFAULT_PACKS, context), assess(deps, DEFAULT_PACKS, context)]);
                await portfolioRun();
                break;
              case 'advance': {
                const to = stops[s.stop];
                if (to <= day) break;
                day = to;
                instant = new Date(s.midnight ? `${day}T00:00:00.000Z` : `${day}T23:59:59.999Z`);
                break;
              }
            }
          }
          await portfolioRun();
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 12) },
    );
  });
});
