import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { graphFacts, type Neighbor } from '../../../queries/compliance/graph-facts';
import { complianceContext } from '../../../src/contexts/compliance/module';
import { graphContext } from '../../../src/contexts/graph/module';
import { namespaceOf } from '../../../streams/graph/names';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * The packs' graph lookups: those for a few vertices asked in the same tick (one entity's
 * assessment, an agent tool's question) go to the database as one statement, and answer
 * exactly what each would have answered alone; a portfolio's run side by side.
 */
describe('graph facts: lookups asked together', () => {
  let t: TestPlatform;
  let namespace: string;
  let wells: string[];

  before(async () => {
    t = await startTestPlatform({ contexts: [graphContext, complianceContext] });
    const session = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    expect((await t.api.post('/graph/seed', { wells: 12, as_of: '2026-01' }, session.headers)).status).to.equal(201);
    namespace = namespaceOf(session.tenantId);
    wells = (await graphFacts(t.deps.knex, namespace).vertices('Well', [])).map((w) => w.id);
  });
  after(() => t.close());

  /** The lookups' statements sent while `fn` runs (each carries the `part` its rows answer). */
  async function statementsOf<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    const statements: string[] = [];
    const listener = (q: { sql: string }) => {
      if (q.sql.includes(' AS part, ')) statements.push(q.sql);
    };
    t.deps.knex.on('query', listener);
    try {
      return { result: await fn(), statements };
    } finally {
      t.deps.knex.off('query', listener);
    }
  }

  const plain = (m: Map<string, Neighbor[]>) =>
    Object.fromEntries([...m].map(([k, v]) => [k, [...v].sort((a, b) => a.vertexId.localeCompare(b.vertexId))]).sort());
  const lookups = (ids: string[] | null) => {
    const graph = graphFacts(t.deps.knex, namespace);
    return [
      () => graph.neighbors(ids, 'LOCATED_IN', 'Lease', 'Well', 'in', ['oil_gas_code']),
      () => graph.neighbors(ids, 'LOCATED_IN', 'Well', 'Lease', 'out', ['oil_gas_code', 'name']),
      () => graph.neighbors(ids, 'OFFSET_TO', 'Well', 'Well', 'both', []),
    ];
  };

  it('lookups for a few vertices asked together are one statement, each answered as if alone', async () => {
    const few = wells.slice(0, 4);
    const alone = [];
    for (const ask of lookups(few)) alone.push(plain(await ask()));
    const { result, statements } = await statementsOf(() => Promise.all(lookups(few).map((ask) => ask())));
    expect(statements).to.have.length(1);
    expect(result.map(plain)).to.deep.equal(alone);
    // The seeded wells have leases and offsets: the comparison is not between empty answers.
    expect(alone[1]).to.not.deep.equal({});
  });

  it("a portfolio's lookups (every vertex) go one statement each, side by side", async () => {
    const alone = [];
    for (const ask of lookups(null)) alone.push(plain(await ask()));
    const { result, statements } = await statementsOf(() => Promise.all(lookups(null).map((ask) => ask())));
    expect(statements).to.have.length(3);
    expect(result.map(plain)).to.deep.equal(alone);
  });

  it('a lookup that fails fails every lookup gathered with it, and the next ones still work', async () => {
    const graph = graphFacts(t.deps.knex, namespace);
    const asked = [
      graph.neighbors(['not-a-uuid'], 'LOCATED_IN', 'Well', 'Lease', 'out', []),
      graph.neighbors(wells.slice(0, 1), 'LOCATED_IN', 'Well', 'Lease', 'out', []),
    ];
    const outcomes = await Promise.allSettled(asked);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
    expect((await graph.neighbors(wells.slice(0, 1), 'LOCATED_IN', 'Well', 'Lease', 'out', [])).size).to.equal(1);
  });
});
