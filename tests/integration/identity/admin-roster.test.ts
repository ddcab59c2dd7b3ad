import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { updateUser } from '../../../commands/identity/update-user';
import { activeAdminIds } from '../../../queries/identity/user-directory';
import { createCommandHandler } from '../../../src/platform/command-handling/command-handler';
import type { EventStore } from '../../../src/platform/eventstore/types';
import { identityDeps, type IdentityDeps } from '../../../commands/identity/identity-deps';
import type { Platform } from '../../../src/platform/platform';
import { adminRosterEvolution, adminRosterStream } from '../../../streams/identity/admin-roster';
import { userStream } from '../../../streams/identity/user';
import { signIn, type Session } from '../../support/auth';
import { httpClient } from '../../support/http';
import { startSecondInstance, startTestPlatform, type TestPlatform } from '../../support/platform';
import { inviteAndRedeem, uniqueEmail } from './helpers';

/** Both calls reach the roster before either appends: the worst interleaving, every run. */
function barrier(parties: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    arrived += 1;
    if (arrived === parties) open();
    if (arrived <= parties) await opened;
  };
}

/**
 * One API instance as far as commands go: its own command handler (and so its own retries)
 * over the shared store. `afterRosterRead` runs after each read of an admin roster stream;
 * `failUserAppend` makes the next append to a user stream fail.
 */
function instance(
  t: TestPlatform,
  hooks: { afterRosterRead?: () => Promise<void>; failUserAppend?: { once: boolean } } = {},
): IdentityDeps {
  const shared = t.deps.store;
  const store: EventStore = {
    kind: shared.kind,
    async append(stream, events, options) {
      if (hooks.failUserAppend?.once && stream.startsWith('identity.user-')) {
        hooks.failUserAppend.once = false;
        throw new Error('user stream unavailable');
      }
      return shared.append(stream, events, options);
    },
    async readStream(stream, options) {
      const events = await shared.readStream(stream, options);
      if (stream.startsWith('identity.admin-roster-')) await hooks.afterRosterRead?.();
      return events;
    },
    appendMany: (writes) => shared.appendMany(writes),
    readAll: (options) => shared.readAll(options),
    subscribeToAll: (options) => shared.subscribeToAll(options),
    headPosition: () => shared.headPosition(),
    close: async () => undefined,
  };
  const base = identityDeps(t.deps);
  return {
    ...base,
    store,
    handle: createCommandHandler({
      store,
      projections: t.deps.projections,
      logger: t.deps.logger,
      retries: t.deps.config.commandRetries,
    }),
  };
}

async function rosterSeats(t: TestPlatform, tenantId: string): Promise<string[]> {
  const state = (await t.deps.store.readStream(adminRosterStream(tenantId)))
    .map(adminRosterEvolution.read)
    .reduce(adminRosterEvolution.evolve, adminRosterEvolution.initialState);
  return state.status === 'open' ? [...state.seats].sort() : [];
}

async function rosterEventTypes(t: TestPlatform, tenantId: string): Promise<string[]> {
  return (await t.deps.store.readStream(adminRosterStream(tenantId))).map((e) => e.type);
}

/** Admins written straight onto their streams, as before the roster existed: no roster events. */
async function legacyAdmins(t: TestPlatform, tenantId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const userId = randomUUID();
    const metadata = { tenantId, actorId: userId, correlationId: randomUUID(), causationId: randomUUID() };
    const data = {
      userId,
      email: `legacy-${userId.slice(0, 8)}@example.com`,
      displayName: null,
      roles: ['admin'],
      kind: 'person',
    };
    const { position } = await t.deps.store.append(
      userStream(tenantId, userId),
      [{ type: 'UserRegistered', data, metadata }],
      { expectedRevision: 'no_stream' },
    );
    await t.deps.projections.waitFor(position, 5000);
    ids.push(userId);
  }
  return ids;
}

const settle = async (calls: Promise<unknown>[]) => {
  const results = await Promise.allSettled(calls);
  return {
    succeeded: results.filter((r) => r.status === 'fulfilled').length,
    refusals: results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error),
  };
};

describe('identity: the tenant admin roster keeps one active admin across instances', function () {
  this.timeout(30000);
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  const changes: Array<[string, Parameters<typeof updateUser>[2]]> = [
    ['deactivate', { isActive: false }],
    ['demote', { roles: ['operator'] }],
  ];
  for (const [change, input] of changes) {
    it(`two instances that ${change} a tenant's last two admins in the same instant: one succeeds, one gets the last-admin conflict`, async () => {
      const a = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
      const b = await signIn(t, { roles: ['admin'], tenantId: a.tenantId });
      const meet = barrier(2);
      const one = instance(t, { afterRosterRead: meet });
      const two = instance(t, { afterRosterRead: meet });
      const { succeeded, refusals } = await settle([
        updateUser(one, b.userId, input, { tenantId: a.tenantId, actorId: a.userId }),
        updateUser(two, a.userId, input, { tenantId: a.tenantId, actorId: b.userId }),
      ]);
      expect(succeeded).to.equal(1);
      expect(refusals.map((e) => e.message)).to.deep.equal(['The last active admin cannot be removed']);
      const remaining = await activeAdminIds(t.deps.knex, a.tenantId);
      expect(remaining).to.have.length(1);
      expect(await rosterSeats(t, a.tenantId)).to.deep.equal(remaining);
    });
  }

  it('a tenant whose admins predate the roster: the first change opens it from the directory, and the race is still decided', async () => {
    const tenantId = randomUUID();
    const [x, y] = await legacyAdmins(t, tenantId, 2);
    expect(await rosterEventTypes(t, tenantId)).to.deep.equal([]);
    const meet = barrier(2);
    const { succeeded, refusals } = await settle([
      updateUser(instance(t, { afterRosterRead: meet }), x, { isActive: false }, { tenantId, actorId: y }),
      updateUser(instance(t, { afterRosterRead: meet }), y, { isActive: false }, { tenantId, actorId: x }),
    ]);
    expect(succeeded).to.equal(1);
    expect(refusals[0].message).to.match(/last active admin/);
    expect(await rosterEventTypes(t, tenantId)).to.deep.equal(['AdminRosterOpened', 'AdminSeatReleased']);
    const remaining = await activeAdminIds(t.deps.knex, tenantId);
    expect(remaining).to.have.length(1);
    expect(await rosterSeats(t, tenantId)).to.deep.equal(remaining);
  });

  it('when the user append fails after the seat was released, the seat is granted back and the other admin stays protected', async () => {
    const a = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    const b = await signIn(t, { roles: ['admin'], tenantId: a.tenantId });
    const failing = instance(t, { failUserAppend: { once: true } });
    let thrown: unknown;
    await updateUser(failing, a.userId, { isActive: false }, { tenantId: a.tenantId, actorId: b.userId }).catch(
      (e) => (thrown = e),
    );
    expect((thrown as Error)?.message).to.equal('user stream unavailable');
    expect(await rosterSeats(t, a.tenantId)).to.deep.equal([a.userId, b.userId].sort());
    expect((await rosterEventTypes(t, a.tenantId)).slice(-2)).to.deep.equal(['AdminSeatReleased', 'AdminSeatGranted']);
    await updateUser(instance(t), a.userId, { isActive: false }, { tenantId: a.tenantId, actorId: b.userId });
    let refused: unknown;
    await updateUser(instance(t), b.userId, { roles: ['reviewer'] }, { tenantId: a.tenantId, actorId: b.userId }).catch(
      (e) => (refused = e),
    );
    expect((refused as Error)?.message).to.equal('The last active admin cannot be removed');
  });

  it('seats follow every way of becoming or ceasing to be an active admin', async () => {
    const first: Session = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    const tenantId = first.tenantId;
    expect(await rosterSeats(t, tenantId)).to.deep.equal([first.userId]);

    const invited = await inviteAndRedeem(t, first, { email: uniqueEmail('roster'), roles: ['admin'] }, 'password-123');
    expect(await rosterSeats(t, tenantId)).to.deep.equal([first.userId, invited.id].sort());

    const operator = await signIn(t, { roles: ['operator'], tenantId });
    expect(await rosterSeats(t, tenantId)).to.not.include(operator.userId);
    expect(
      (await t.api.patch(`/auth/admin/users/${operator.userId}`, { roles: ['operator', 'admin'] }, first.headers))
        .status,
    ).to.equal(200);
    expect(await rosterSeats(t, tenantId)).to.include(operator.userId);

    expect((await t.api.patch(`/auth/admin/users/${invited.id}`, { is_active: false }, first.headers)).status).to.equal(
      200,
    );
    expect(await rosterSeats(t, tenantId)).to.not.include(invited.id);
    expect((await t.api.patch(`/auth/admin/users/${invited.id}`, { is_active: true }, first.headers)).status).to.equal(
      200,
    );
    expect(await rosterSeats(t, tenantId)).to.include(invited.id);

    expect(
      (await t.api.patch(`/auth/admin/users/${operator.userId}`, { roles: ['operator'] }, first.headers)).status,
    ).to.equal(200);
    expect(await rosterSeats(t, tenantId)).to.deep.equal([first.userId, invited.id].sort());
    expect(await rosterSeats(t, tenantId)).to.deep.equal(await activeAdminIds(t.deps.knex, tenantId));
  });

  it("the bootstrap administrator holds the default tenant's first seat", async () => {
    const seats = await rosterSeats(t, '00000000-0000-0000-0000-000000000001');
    const bootstrap = await t.deps.knex('identity_users').where({ email: 'admin@example.com' }).first();
    expect(seats).to.include(bootstrap.id);
  });

  describe('with a second API platform on the same database (ROLE=api)', () => {
    let second: Platform;

    before(async () => {
      ({ platform: second } = await startSecondInstance(t));
    });
    after(() => second?.stop());

    it('two admins deactivating each other through different platforms at the same instant: one 200, one 409, one active admin left', async () => {
      const secondApi = httpClient(`${second.publicUrl}/api/v1`);
      // A non-leader instance waits on the leader's stored checkpoints, so rounds are slow-ish.
      for (let round = 0; round < 2; round++) {
        const a = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
        const b = await signIn(t, { roles: ['admin'], tenantId: a.tenantId });
        const [ab, ba] = await Promise.all([
          t.api.patch(`/auth/admin/users/${b.userId}`, { is_active: false }, a.headers),
          secondApi.patch(`/auth/admin/users/${a.userId}`, { is_active: false }, b.headers),
        ]);
        expect([ab.status, ba.status].sort(), `${ab.text} ${ba.text}`).to.deep.equal([200, 409]);
        expect((ab.status === 409 ? ab : ba).body).to.deep.equal({ detail: 'The last active admin cannot be removed' });
        expect(await activeAdminIds(t.deps.knex, a.tenantId)).to.have.length(1);
      }
    });
  });
});
