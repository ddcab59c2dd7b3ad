import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { scheduleMessage, SCHEDULE_TABLE } from '../../../src/platform/scheduling/schedule';
import { eventually } from '../../support/eventually';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { type Relay, startRelayFor } from '../../support/tcp-relay';

interface Health {
  status: string;
  lanes?: Array<{ name: string; kind: string; lag_events: number; subscribed: boolean | null }>;
  degraded_lanes?: unknown[];
  leaderless?: string[];
  database?: string;
}

/**
 * The platform behind a TCP relay that drops every connection and refuses new ones for a
 * while: once the database is back, a write reaches every asynchronous read model at its
 * usual pace without a restart, and /health says `degraded` meanwhile and `ok` after.
 */
describe('lanes come back after a database outage (through a TCP relay)', function () {
  this.timeout(180_000);
  let relay: Relay;
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform({
      databaseUrl: async (url) => {
        relay = await startRelayFor(url);
        return relay.url(url);
      },
      env: { LEADER_PROBE_MS: '1000' },
    });
  });
  after(async () => {
    await t?.close();
    // The relay's listener can wait on a half-closed socket of a cut pair: do not wait for it long.
    await Promise.race([relay?.close(), new Promise((r) => setTimeout(r, 2000))]);
  });

  const health = async (): Promise<Health> => (await fetch(`${t.publicUrl}/health`)).json() as Promise<Health>;

  /** Polls /health during an outage of `ms`; answers every status seen. */
  async function outage(ms: number, mode: 'reset' | 'end'): Promise<Set<string>> {
    const seen = new Set<string>();
    const down = relay.outage(ms, mode);
    let over = false;
    void down.then(() => (over = true));
    while (!over) {
      seen.add((await health()).status);
      await new Promise((r) => setTimeout(r, 250));
    }
    return seen;
  }

  /** A write after the outage: its message reaches the scheduled-message read model, and every lane reaches the head. */
  async function writeReachesEveryReadModel(): Promise<void> {
    const messageId = `after-outage-${randomUUID()}`;
    const tenantId = randomUUID();
    const dueAt = new Date(Date.now() + 3_600_000).toISOString();
    // The first command may meet a pooled connection the outage killed: a client retries.
    await eventually(async () => {
      try {
        await scheduleMessage(
          t.deps.handle,
          { tenantId, actorId: 'test' },
          { messageId, dueAt, handler: 'nobody.knows', payload: {} },
        );
        return true;
      } catch {
        return false;
      }
    }, 10_000);
    const written = Date.now();
    await eventually(
      async () =>
        (await t.deps.knex(SCHEDULE_TABLE).where({ tenant_id: tenantId, message_id: messageId }).first()) ?? null,
      5_000,
    );
    expect(Date.now() - written, 'the read model is written at its usual pace').to.be.lessThan(5_000);
    const settled = await eventually(async () => {
      const now = await health();
      return now.status === 'ok' && now.lanes!.every((lane) => lane.lag_events === 0) ? now : null;
    }, 20_000);
    expect(
      settled.lanes!.filter((lane) => lane.kind === 'projection').every((lane) => lane.subscribed === true),
    ).to.equal(true);
  }

  it("before any outage every lane is at the head and /health is ok, with each lane's lag", async () => {
    const now = await eventually(async () => {
      const answer = await health();
      return answer.status === 'ok' ? answer : null;
    }, 20_000);
    expect(now.lanes!.map((lane) => lane.kind)).to.include.members(['projection', 'reactor', 'scheduler']);
  });

  it('after a 3-second outage that resets every connection, a write reaches every read model without a restart', async () => {
    const seen = await outage(3_000, 'reset');
    expect([...seen]).to.include('degraded');
    await writeReachesEveryReadModel();
  });

  it('after a 30-second outage that ends every connection cleanly, a write reaches every read model without a restart', async () => {
    const seen = await outage(30_000, 'end');
    expect([...seen]).to.include('degraded');
    await writeReachesEveryReadModel();
  });
});
