import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { settingsCacheKey } from '../../../src/contexts/settings/settings-cache';
import { tenantSettingsStream } from '../../../streams/settings/tenant-settings';
import { userBudgetOverrideStream } from '../../../streams/settings/user-budget-override';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { TEST_SIGNING_KEY } from '../../support/secrets';

/** Per-user budget overrides, and the signed audit of every settings write. */
describe('user budget overrides and the settings audit', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  async function tenant(): Promise<{ admin: Session; member: Session; tenantId: string }> {
    const tenantId = randomUUID();
    return {
      tenantId,
      admin: await signIn(t, { roles: ['admin'], tenantId }),
      member: await signIn(t, { roles: ['operator'], tenantId }),
    };
  }

  describe('overrides', () => {
    it("an admin sets a user's daily caps; the user sees them in GET /settings", async () => {
      const { admin, member } = await tenant();
      const put = await t.api.put(
        `/settings/user-overrides/${member.userId}`,
        { max_tokens_per_day: 50_000, max_cost_usd_per_day: 4.25 },
        admin.headers,
      );
      expect(put.status).to.equal(200);
      expect(put.body).to.deep.include({
        user_id: member.userId,
        max_tokens_per_day: 50_000,
        max_cost_usd_per_day: 4.25,
        updated_by: admin.userId,
      });
      expect(put.body).to.have.keys(
        'user_id',
        'max_tokens_per_day',
        'max_cost_usd_per_day',
        'updated_by',
        'updated_at',
      );
      const own = await t.api.get('/settings', member.headers);
      expect(own.body.user_override).to.deep.equal(put.body);
      // The admin has no override of their own.
      expect((await t.api.get('/settings', admin.headers)).body.user_override).to.equal(null);
    });

    it('an absent cap keeps its stored value, null clears it', async () => {
      const { admin, member } = await tenant();
      await t.api.put(
        `/settings/user-overrides/${member.userId}`,
        { max_tokens_per_day: 100, max_cost_usd_per_day: 1 },
        admin.headers,
      );
      const kept = await t.api.put(
        `/settings/user-overrides/${member.userId}`,
        { max_tokens_per_day: 200 },
        admin.headers,
      );
      expect(kept.body).to.include({ max_tokens_per_day: 200, max_cost_usd_per_day: 1 });
      const cleared = await t.api.put(
        `/settings/user-overrides/${member.userId}`,
        { max_tokens_per_day: 300, max_cost_usd_per_day: null },
        admin.headers,
      );
      expect(cleared.body).to.include({ max_tokens_per_day: 300, max_cost_usd_per_day: null });
    });

    it('a body with neither cap set answers 422 naming both fields, and nothing is stored', async () => {
      const { admin, member, tenantId } = await tenant();
      for (const body of [{}, { max_tokens_per_day: null, max_cost_usd_per_day: null }]) {
        const response = await t.api.put(`/settings/user-overrides/${member.userId}`, body, admin.headers);
        expect(response.status).to.equal(422);
        expect(response.body.detail.map((d: { loc: string[] }) => d.loc)).to.deep.equal([
          ['body', 'max_tokens_per_day'],
          ['body', 'max_cost_usd_per_day'],
        ]);
      }
      expect(await t.deps.store.readStream(userBudgetOverrideStream(tenantId, member.userId))).to.have.length(0);
    });

    it('a user of another tenant, or no user at all, cannot be given an override (404)', async () => {
      const a = await tenant();
      const b = await tenant();
      for (const userId of [b.member.userId, randomUUID()]) {
        const response = await t.api.put(
          `/settings/user-overrides/${userId}`,
          { max_tokens_per_day: 1 },
          a.admin.headers,
        );
        expect(response.status).to.equal(404);
        expect(response.body).to.deep.equal({ detail: 'User not found' });
        expect(await t.deps.store.readStream(userBudgetOverrideStream(a.tenantId, userId))).to.have.length(0);
      }
    });

    it('a user id that is not a uuid answers 422 on the path', async () => {
      const { admin } = await tenant();
      const response = await t.api.put('/settings/user-overrides/not-a-user', { max_tokens_per_day: 1 }, admin.headers);
      expect(response.status).to.equal(422);
      expect(response.body.detail[0].loc).to.deep.equal(['path', 'user_id']);
    });

    it("the admin list shows the tenant's overrides only", async () => {
      const a = await tenant();
      const b = await tenant();
      const other = await signIn(t, { tenantId: a.tenantId });
      await t.api.put(`/settings/user-overrides/${a.member.userId}`, { max_tokens_per_day: 1000 }, a.admin.headers);
      await t.api.put(`/settings/user-overrides/${other.userId}`, { max_cost_usd_per_day: 2 }, a.admin.headers);
      await t.api.put(`/settings/user-overrides/${b.member.userId}`, { max_tokens_per_day: 9 }, b.admin.headers);
      const list = await t.api.get('/settings/user-overrides', a.admin.headers);
      expect(list.status).to.equal(200);
      expect(list.body.map((o: { user_id: string }) => o.user_id)).to.have.members([a.member.userId, other.userId]);
    });

    it('DELETE answers 204, the user falls back to tenant caps, and a second DELETE is 404', async () => {
      const { admin, member, tenantId } = await tenant();
      await t.api.put(`/settings/user-overrides/${member.userId}`, { max_tokens_per_day: 10 }, admin.headers);
      await t.api.get('/settings', member.headers);
      const deleted = await t.api.delete(`/settings/user-overrides/${member.userId}`, admin.headers);
      expect(deleted.status).to.equal(204);
      expect(deleted.text).to.equal('');
      // The write deleted the cached entry.
      expect(await t.deps.cache.get(settingsCacheKey(tenantId))).to.equal(undefined);
      expect((await t.api.get('/settings', member.headers)).body.user_override).to.equal(null);
      expect((await t.api.get('/settings/user-overrides', admin.headers)).body).to.deep.equal([]);
      const again = await t.api.delete(`/settings/user-overrides/${member.userId}`, admin.headers);
      expect(again.status).to.equal(404);
      expect(again.body).to.deep.equal({ detail: 'No budget override for this user' });
    });

    it('listing, setting and deleting overrides need settings.manage', async () => {
      const { member } = await tenant();
      for (const response of [
        await t.api.get('/settings/user-overrides', member.headers),
        await t.api.put(`/settings/user-overrides/${member.userId}`, { max_tokens_per_day: 1_000_000 }, member.headers),
        await t.api.delete(`/settings/user-overrides/${member.userId}`, member.headers),
      ]) {
        expect(response.status).to.equal(403);
        expect(response.body).to.deep.equal({ detail: 'Insufficient permissions' });
      }
    });
  });

  describe('audit', () => {
    it('each write is a signed event carrying its audit action', async () => {
      const { admin, member, tenantId } = await tenant();
      await t.api.put('/settings', { max_tokens_per_day: 1 }, admin.headers);
      await t.api.put(`/settings/user-overrides/${member.userId}`, { max_tokens_per_day: 1 }, admin.headers);
      await t.api.delete(`/settings/user-overrides/${member.userId}`, admin.headers);
      const [update] = await t.deps.store.readStream(tenantSettingsStream(tenantId));
      expect(update.metadata).to.include({ action: 'platform_settings.update', actorId: admin.userId, tenantId });
      expect(update.metadata.signature).to.be.a('string').that.is.not.empty;
      const override = await t.deps.store.readStream(userBudgetOverrideStream(tenantId, member.userId));
      expect(override.map((e) => e.metadata.action)).to.deep.equal([
        'platform_settings.user_override.upsert',
        'platform_settings.user_override.delete',
      ]);
    });

    it('GET /settings/audit-log shows admins who changed what and when, newest first', async () => {
      const { admin, member } = await tenant();
      await t.api.put('/settings', { default_model: 'openai/gpt-4o' }, admin.headers);
      await t.api.put('/settings', { default_model: 'openai/gpt-4.1', max_cost_usd_per_day: 30 }, admin.headers);
      await t.api.put(`/settings/user-overrides/${member.userId}`, { max_tokens_per_day: 42 }, admin.headers);
      await t.api.delete(`/settings/user-overrides/${member.userId}`, admin.headers);
      const log = await t.api.get('/settings/audit-log', admin.headers);
      expect(log.status).to.equal(200);
      expect(log.body.map((e: { action: string }) => e.action)).to.deep.equal([
        'platform_settings.user_override.delete',
        'platform_settings.user_override.upsert',
        'platform_settings.update',
        'platform_settings.update',
      ]);
      const [deleted, upserted, second, first] = log.body;
      expect(first).to.deep.include({
        actor_id: admin.userId,
        target_user_id: null,
        changes: { default_model: { from: null, to: 'openai/gpt-4o' } },
      });
      expect(second.changes).to.deep.equal({
        default_model: { from: 'openai/gpt-4o', to: 'openai/gpt-4.1' },
        max_cost_usd_per_day: { from: null, to: 30 },
      });
      expect(upserted).to.deep.include({
        target_user_id: member.userId,
        changes: { max_tokens_per_day: { from: null, to: 42 } },
      });
      expect(deleted.changes).to.deep.equal({ max_tokens_per_day: { from: 42, to: null } });
      for (const entry of log.body) {
        expect(entry).to.have.keys('id', 'action', 'actor_id', 'target_user_id', 'changes', 'at');
        expect(new Date(entry.at).toISOString()).to.equal(entry.at);
      }
    });

    it('the audit log filters by action, pages with before and limit, and stays within the tenant', async () => {
      const { admin, member } = await tenant();
      const other = await tenant();
      for (const tokens of [1, 2, 3]) await t.api.put('/settings', { max_tokens_per_day: tokens }, admin.headers);
      await t.api.put(`/settings/user-overrides/${member.userId}`, { max_tokens_per_day: 5 }, admin.headers);
      await t.api.put('/settings', { max_tokens_per_day: 99 }, other.admin.headers);
      const updates = await t.api.get('/settings/audit-log?action=platform_settings.update', admin.headers);
      expect(
        updates.body.map((e: { changes: { max_tokens_per_day: { to: number } } }) => e.changes.max_tokens_per_day.to),
      ).to.deep.equal([3, 2, 1]);
      const page1 = await t.api.get('/settings/audit-log?limit=2', admin.headers);
      expect(page1.body).to.have.length(2);
      const page2 = await t.api.get(`/settings/audit-log?limit=2&before=${page1.body[1].id}`, admin.headers);
      expect(
        page2.body.map((e: { changes: { max_tokens_per_day: { to: number } } }) => e.changes.max_tokens_per_day.to),
      ).to.deep.equal([2, 1]);
      expect((await t.api.get('/settings/audit-log?limit=0', admin.headers)).status).to.equal(422);
    });

    it('the audit log is for admins only', async () => {
      const { member } = await tenant();
      const response = await t.api.get('/settings/audit-log', member.headers);
      expect(response.status).to.equal(403);
    });

    it('the settings read models rebuild from the events alone to the same answers', async () => {
      const { admin, member, tenantId } = await tenant();
      await t.api.put('/settings', { default_model: 'openai/gpt-4o', max_cost_usd_per_day: 7 }, admin.headers);
      await t.api.put(`/settings/user-overrides/${member.userId}`, { max_tokens_per_day: 64 }, admin.headers);
      const before = {
        settings: (await t.api.get('/settings', member.headers)).body,
        log: (await t.api.get('/settings/audit-log', admin.headers)).body,
      };
      for (const name of ['settings_tenant_settings', 'settings_user_budget_overrides', 'settings_audit_log'])
        await t.deps.projections.rebuild(name);
      await t.deps.cache.delete(settingsCacheKey(tenantId));
      const after = {
        settings: (await t.api.get('/settings', member.headers)).body,
        log: (await t.api.get('/settings/audit-log', admin.headers)).body,
      };
      expect(after).to.deep.equal(before);
    });

    it('`ops audit replay` shows the action of each settings write', async function () {
      this.timeout(60_000);
      const { admin, tenantId } = await tenant();
      await t.api.put('/settings', { max_thinking_mode: 'disabled' }, admin.headers);
      const root = path.resolve(__dirname, '../../..');
      const { stdout } = await promisify(execFile)(
        path.join(root, 'node_modules/.bin/tsx'),
        ['ops/cli.ts', 'audit', 'replay', '--settings', 'tenant', '--tenant', tenantId],
        {
          cwd: root,
          env: {
            ...process.env,
            DATABASE_URL: t.platform.db.url,
            AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
            LOG_LEVEL: 'silent',
            REDIS_URL: '',
          },
        },
      );
      expect(stdout).to.contain('settings changed: maxThinkingMode from (none) to disabled');
      expect(stdout).to.contain('action=platform_settings.update');
      expect(stdout).to.contain(`${admin.email} [admin]`);
      expect(stdout).to.contain('verified');
      expect(stdout).not.to.contain('TAMPERED');
    });
  });
});
