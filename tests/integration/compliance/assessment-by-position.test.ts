import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import sinon from 'sinon';
import { expectCellsOfWholeRun } from '../../support/whole-run';
import { DEFAULT_PACKS } from '../../../commands/compliance/packs';
import type { DomainPack } from '../../../commands/compliance/packs/pack';
import { assess } from '../../../commands/compliance/record-assessment';
import { addDays } from '../../../src/platform/dates';
import { complianceContext } from '../../../src/contexts/compliance/module';
import { graphContext } from '../../../src/contexts/graph/module';
import { assessedEntities, readAssessmentEvent } from '../../../streams/compliance/assessment';
import { assessmentRunsStream } from '../../../streams/compliance/runs';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

const isoToday = () => new Date().toISOString().slice(0, 10);

/**
 * What changed since the previous run is found by log position, never by the writer's clock:
 * a change committed late with a lower position, stamped in the same millisecond as the
 * previous run's newest change, or stamped by a lagging clock is re-evaluated by the next run;
 * two runs racing each other leave the newer verdict; other rules judge every entity again.
 * Each case ends with the current verdicts equal to a whole run of the packs.
 */
describe('re-assessing a portfolio by log position', () => {
  let t: TestPlatform;
  let auth: Record<string, string>;
  let tenantId: string;
  let wells: Array<{ id: string; entity_id: string }>;
  let feet = 1000;

  before(async () => {
    t = await startTestPlatform({ contexts: [graphContext, complianceContext] });
    const session = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    auth = session.headers;
    tenantId = session.tenantId;
    expect(
      (await t.api.post('/graph/seed', { wells: 30, as_of: new Date().toISOString().slice(0, 7) }, auth)).status,
    ).to.equal(201);
    wells = (await t.api.get('/graph/entities/Well?limit=100', auth)).body.entities;
    await run();
  });
  afterEach(() => sinon.restore());
  after(() => t.close());

  /**
   * One portfolio run as the daily run makes it, its recorded verdicts and re-evaluated count;
   * then the dashboard's read model holds them (unless `wait` is false: an older transaction
   * held open keeps them from readers).
   */
  async function run(packs: DomainPack<any>[] = DEFAULT_PACKS, wait = true, day?: string) {
    const deps = day ? { ...t.deps, clock: () => new Date(`${day}T12:00:00Z`) } : t.deps;
    const body = (await assess(deps, packs, { tenantId, actorId: 'test' })) as { assessment_id: string };
    const events = await t.deps.store.readStream(`compliance.assessment-${tenantId}-${body.assessment_id}`);
    const recorded = events[events.length - 1].data as { reassessed?: number };
    if (wait) expect(await t.deps.projections.waitFor(events[events.length - 1].position, 30_000)).to.equal(true);
    return {
      reassessed: recorded.reassessed,
      verdicts: events.flatMap((e) => assessedEntities(readAssessmentEvent(e))),
    };
  }

  /** A lease-line distance never set before: the well's Rule 37 verdict (its facts) changes. */
  const change = (well: { id: string }) =>
    t.api.put(`/graph/entities/Well/${well.id}`, { properties: { lease_line_distance_ft: ++feet } }, auth);

  /**
   * The change's events stamped at `at` (the store stamps them with `new Date()`): the clock
   * is set only while they are appended, so the lanes and the waits keep real time.
   */
  async function changeStampedAt(well: { id: string }, at: number) {
    const store = t.deps.store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const stubs = (['append', 'appendMany'] as const).map((name) => {
      const real = store[name].bind(store);
      return sinon.stub(store, name).callsFake(async (...args: unknown[]) => {
        const clock = sinon.useFakeTimers({ now: at, toFake: ['Date'] });
        try {
          return await real(...args);
        } finally {
          clock.restore();
        }
      });
    });
    try {
      expect((await change(well)).status).to.equal(200);
    } finally {
      for (const stub of stubs) stub.restore();
    }
  }

  const expectSameAsWholeRun = (packs: DomainPack<any>[] = DEFAULT_PACKS, today = isoToday()) =>
    expectCellsOfWholeRun(t.deps.knex, tenantId, packs, today);

  const lockWaiters = async () =>
    Number(
      (await t.deps.knex.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)).rows[0]
        .n,
    );

  it('a change committed after a run read the graph, with a lower position than changes it saw, is re-evaluated next', async () => {
    const [late, early] = [wells[0], wells[1]];
    // The late change takes its transaction id, then waits on a row lock until after the run.
    const lock = await t.deps.knex.transaction();
    try {
      await lock.raw('SELECT id FROM graph_vertices WHERE id = ? FOR UPDATE', [late.id]);
      const pending = change(late);
      while ((await lockWaiters()) === 0) await new Promise((r) => setTimeout(r, 10));
      // Stamped and committed after it: the newest change the run sees.
      expect((await change(early)).status).to.equal(200);
      const first = await run(DEFAULT_PACKS, false);
      expect(first.verdicts.map((v) => v.entityId))
        .to.include(early.entity_id)
        .and.not.include(late.entity_id);
      await lock.commit();
      expect((await pending).status).to.equal(200);
    } finally {
      if (!lock.isCompleted()) await lock.rollback();
    }
    // Everything, the first run included, in the read models before the next one plans.
    expect(await t.deps.projections.waitFor(await t.deps.store.headPosition(), 30_000)).to.equal(true);
    const second = await run();
    expect(second.verdicts.map((v) => v.entityId)).to.include(late.entity_id);
    await expectSameAsWholeRun();
  });

  it('a change stamped in the same millisecond as the run before it is re-evaluated', async () => {
    const at = Date.now();
    await changeStampedAt(wells[2], at);
    await run();
    await changeStampedAt(wells[3], at);
    const again = await run();
    expect(again.verdicts.map((v) => v.entityId)).to.include(wells[3].entity_id);
    await expectSameAsWholeRun();
  });

  it('a change stamped by a clock an hour behind is re-evaluated', async () => {
    await run();
    await changeStampedAt(wells[4], Date.now() - 3_600_000);
    const again = await run();
    expect(again.verdicts.map((v) => v.entityId)).to.include(wells[4].entity_id);
    await expectSameAsWholeRun();
  });

  it('two runs racing each other: the one planned first and recorded last plans again, the newer verdict stays', async () => {
    await run();
    expect((await change(wells[5])).status).to.equal(200);
    // The slow run reads the Rule 37 facts of that change, then waits: its verdicts are those of the graph before the next one.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let loaded!: () => void;
    const read = new Promise<void>((r) => (loaded = r));
    let gated = true;
    const slowPacks = DEFAULT_PACKS.map((pack) =>
      pack.domain !== 'rule_37'
        ? pack
        : {
            ...pack,
            async load(graph: any, ids: string[] | null) {
              const facts = await pack.load(graph, ids);
              if (gated) {
                gated = false;
                loaded();
                await gate;
              }
              return facts;
            },
          },
    );
    const slow = run(slowPacks);
    await Promise.race([read, slow.then(() => expect.fail('the slow run read no Rule 37 facts'))]);
    expect((await change(wells[5])).status).to.equal(200);
    const fast = await run();
    expect(fast.verdicts.map((v) => v.entityId)).to.include(wells[5].entity_id);
    release();
    await slow;
    await expectSameAsWholeRun();
    // Serialised: each run names the one it was planned after.
    const runs = await t.deps.store.readStream(assessmentRunsStream(tenantId));
    expect(new Set(runs.map((e) => (e.data as { assessmentId: string }).assessmentId)).size).to.equal(runs.length);
  });

  it('a pack whose rules changed under the same domain makes the next run judge every entity', async () => {
    await run();
    const revised = DEFAULT_PACKS.map((pack) =>
      pack.domain !== 'rule_37'
        ? pack
        : {
            ...pack,
            rulesVersion: `${pack.rulesVersion}+revised`,
            assess: (...args: Parameters<typeof pack.assess>) => {
              const v = pack.assess(...args);
              return v && { ...v, reason: `${v.reason} (revised)` };
            },
          },
    );
    const again = await run(revised);
    expect(again.reassessed).to.be.greaterThan(wells.length - 1);
    await expectSameAsWholeRun(revised);
  });

  it('a later day re-evaluates only the verdicts that stop holding by then and those near a change, as a whole run would judge', async () => {
    await run();
    const today = isoToday();
    const month = today.slice(0, 7);
    const [y, m] = month.split('-').map(Number);
    const monthEnd = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
    const nextStart = new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10);
    // Tomorrow, the month's last day and the next one's first, Christmas Eve and the day after Christmas, six weeks on.
    const days = [
      ...new Set([addDays(today, 1), monthEnd, nextStart, `${y}-12-24`, `${y}-12-26`, addDays(nextStart, 40)]),
    ]
      .filter((d) => d > today)
      .sort();
    let partial = 0;
    for (const day of days) {
      if (day === days[2]) expect((await change(wells[6])).status).to.equal(200);
      const again = await run(DEFAULT_PACKS, true, day);
      if ((again.reassessed ?? Infinity) < wells.length) partial++;
      await expectSameAsWholeRun(DEFAULT_PACKS, day);
    }
    expect(partial, 'later days re-evaluated only some entities').to.be.greaterThan(0);
  });
});
