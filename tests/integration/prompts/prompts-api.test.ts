import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { countTokens } from '../../../src/platform/infra/tokens';
import { httpClient } from '../../support/http';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { superuserConnection } from '../../support/database';

/** Prompts: the version lifecycle, resolve, render and the signed audit, over HTTP. */
describe('prompts API', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  interface Tenant {
    tenantId: string;
    admin: Session;
    approver: Session;
    author: Session;
    author2: Session;
    operator: Session;
  }

  async function tenant(): Promise<Tenant> {
    const tenantId = randomUUID();
    return {
      tenantId,
      admin: await signIn(t, { roles: ['admin'], tenantId }),
      approver: await signIn(t, { roles: ['admin'], tenantId }),
      author: await signIn(t, { roles: ['power_user'], tenantId }),
      author2: await signIn(t, { roles: ['power_user'], tenantId }),
      operator: await signIn(t, { roles: ['operator'], tenantId }),
    };
  }

  async function template(
    x: Tenant,
    slug = 'chat',
    extra: Record<string, unknown> = {},
  ): Promise<{ namespaceId: string; templateId: string; ref: string }> {
    const ns = await t.api.post(
      '/prompts/namespaces',
      { name: `agents-${slug}`, description: 'agent prompts' },
      x.admin.headers,
    );
    expect(ns.status, ns.text).to.equal(201);
    const tpl = await t.api.post('/prompts/templates', { namespace_id: ns.body.id, slug, ...extra }, x.author.headers);
    expect(tpl.status, tpl.text).to.equal(201);
    return { namespaceId: ns.body.id, templateId: tpl.body.id, ref: tpl.body.ref };
  }

  async function activeVersion(x: Tenant, templateId: string, body: string): Promise<string> {
    const draft = await t.api.post(
      `/prompts/templates/${templateId}/versions`,
      { body, change_note: 'v' },
      x.author.headers,
    );
    expect(draft.status, draft.text).to.equal(201);
    expect(
      (await t.api.post(`/prompts/versions/${draft.body.id}/promote-pre-prod`, {}, x.author.headers)).status,
    ).to.equal(200);
    const approved = await t.api.post(`/prompts/versions/${draft.body.id}/approve`, {}, x.approver.headers);
    expect(approved.status, approved.text).to.equal(200);
    return draft.body.id;
  }

  it('namespaces hold budget tiers; names are unique per tenant; writes need prompts.approve', async () => {
    const x = await tenant();
    const created = await t.api.post(
      '/prompts/namespaces',
      { name: 'compliance', description: 'filings' },
      x.admin.headers,
    );
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ name: 'compliance', description: 'filings', created_by: x.admin.userId });
    expect((await t.api.post('/prompts/namespaces', { name: 'compliance' }, x.approver.headers)).status).to.equal(409);
    expect((await t.api.post('/prompts/namespaces', { name: 'other' }, x.author.headers)).status).to.equal(403);
    expect((await t.api.post('/prompts/namespaces', { name: 'Bad Name' }, x.admin.headers)).status).to.equal(422);

    const tier = await t.api.post(
      `/prompts/namespaces/${created.body.id}/tiers`,
      { name: 'small', max_tokens: 500 },
      x.admin.headers,
    );
    expect(tier.status).to.equal(201);
    expect(tier.body).to.include({ name: 'small', max_tokens: 500, namespace_id: created.body.id });
    const updated = await t.api.put(
      `/prompts/namespaces/${created.body.id}/tiers/${tier.body.id}`,
      { name: 'small', max_tokens: 800 },
      x.admin.headers,
    );
    expect(updated.body.max_tokens).to.equal(800);
    const got = await t.api.get(`/prompts/namespaces/${created.body.id}`, x.author.headers);
    expect(got.body.tiers.map((r: { id: string }) => r.id)).to.deep.equal([tier.body.id]);
    expect(
      (await t.api.delete(`/prompts/namespaces/${created.body.id}/tiers/${tier.body.id}`, x.admin.headers)).status,
    ).to.equal(200);
    expect((await t.api.get(`/prompts/namespaces/${created.body.id}/tiers`, x.admin.headers)).body).to.deep.equal([]);

    const renamed = await t.api.put(
      `/prompts/namespaces/${created.body.id}`,
      { description: 'regulatory filings' },
      x.admin.headers,
    );
    expect(renamed.body.description).to.equal('regulatory filings');
    const stranger = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    expect((await t.api.get(`/prompts/namespaces/${created.body.id}`, stranger.headers)).status).to.equal(404);
    expect(
      (await t.api.put(`/prompts/namespaces/${created.body.id}`, { description: 'x' }, stranger.headers)).status,
    ).to.equal(404);
  });

  it('templates are addressed <namespace>:<slug>, unique within the namespace', async () => {
    const x = await tenant();
    const { namespaceId, templateId, ref } = await template(x, 'well-summary', { variables: ['well'] });
    expect(ref).to.equal('agents-well-summary:well-summary');
    expect(
      (await t.api.post('/prompts/templates', { namespace_id: namespaceId, slug: 'well-summary' }, x.author2.headers))
        .status,
    ).to.equal(409);
    const got = await t.api.get(`/prompts/templates/${templateId}`, x.author.headers);
    expect(got.body).to.include({ slug: 'well-summary', namespace_id: namespaceId, active_version_id: null });
    expect(got.body.variables).to.deep.equal(['well']);
    const put = await t.api.put(
      `/prompts/templates/${templateId}`,
      { description: 'per-well summary' },
      x.author.headers,
    );
    expect(put.body.description).to.equal('per-well summary');
    expect((await t.api.get(`/prompts/templates?namespace_id=${namespaceId}`, x.admin.headers)).body).to.have.length(1);
    expect((await t.api.delete(`/prompts/templates/${templateId}`, x.author.headers)).status).to.equal(200);
    expect((await t.api.get(`/prompts/templates/${templateId}`, x.author.headers)).status).to.equal(404);
    // The slug is free again once the template is deleted.
    expect(
      (await t.api.post('/prompts/templates', { namespace_id: namespaceId, slug: 'well-summary' }, x.author.headers))
        .status,
    ).to.equal(201);
  });

  it('one draft per author: create (201), a second is 409, save, my-draft, discard', async () => {
    const x = await tenant();
    const { templateId } = await template(x);
    const draft = await t.api.post(
      `/prompts/templates/${templateId}/versions`,
      { body: 'Hello {{ operator }}', change_note: 'first cut' },
      x.author.headers,
    );
    expect(draft.status).to.equal(201);
    expect(draft.body).to.include({
      version_number: 1,
      status: 'draft',
      body: 'Hello {{ operator }}',
      author_id: x.author.userId,
      change_note: 'first cut',
      rendered_token_estimate: countTokens('Hello {{ operator }}'),
    });
    expect(draft.body.validation_result).to.deep.include({
      valid: true,
      syntax_ok: true,
      subset_ok: true,
      variables_extracted: ['operator'],
      unknown_variables: [],
    });
    expect(draft.body.created_at).to.be.a('string');

    const second = await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'again' }, x.author.headers);
    expect(second.status).to.equal(409);
    expect(second.body.existing_draft_id).to.equal(draft.body.id);
    const other = await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'mine' }, x.author2.headers);
    expect(other.status).to.equal(201);
    expect(other.body.version_number).to.equal(2);

    const saved = await t.api.put(
      `/prompts/versions/${draft.body.id}/save-draft`,
      { body: 'Hello {{ operator }} in {{ district }}' },
      x.author.headers,
    );
    expect(saved.status).to.equal(200);
    expect(saved.body).to.include({ change_note: 'first cut', body: 'Hello {{ operator }} in {{ district }}' });
    expect(saved.body.validation_result.variables_extracted).to.deep.equal(['operator', 'district']);
    expect(
      (await t.api.put(`/prompts/versions/${draft.body.id}/save-draft`, { body: 'x' }, x.author2.headers)).status,
    ).to.equal(403);
    expect((await t.api.get(`/prompts/templates/${templateId}/my-draft`, x.author.headers)).body.id).to.equal(
      draft.body.id,
    );

    expect((await t.api.delete(`/prompts/versions/${draft.body.id}/discard`, x.author.headers)).body).to.deep.equal({
      id: draft.body.id,
      status: 'discarded',
    });
    expect((await t.api.get(`/prompts/templates/${templateId}/my-draft`, x.author.headers)).status).to.equal(404);
    expect(
      (await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'fresh' }, x.author.headers)).status,
    ).to.equal(201);
  });

  it('a template syntax error is 422 with line and column; a subset violation is stored invalid and never promoted', async () => {
    const x = await tenant();
    const { templateId } = await template(x);
    const broken = await t.api.post(
      `/prompts/templates/${templateId}/versions`,
      { body: 'Dear {{ name }},\n{% for w in wells %}{{ w }}' },
      x.author.headers,
    );
    expect(broken.status).to.equal(422);
    expect(broken.body).to.include({ line: 2, column: 1 });
    expect(broken.body.detail[0]).to.deep.equal({
      loc: ['body', 'body'],
      msg: 'line 2, column 1: {% for %} is never closed',
      type: 'template_syntax',
    });

    const unsafe = await t.api.post(
      `/prompts/templates/${templateId}/versions`,
      { body: '{{ user.__class__ }} {% include "secrets" %}' },
      x.author.headers,
    );
    expect(unsafe.status).to.equal(201);
    expect(unsafe.body.validation_result).to.include({ valid: false, syntax_ok: true, subset_ok: false });
    expect(
      (await t.api.post(`/prompts/versions/${unsafe.body.id}/promote-pre-prod`, {}, x.author.headers)).status,
    ).to.equal(422);
    expect(
      (await t.api.post(`/prompts/versions/${unsafe.body.id}/promote-active`, {}, x.approver.headers)).status,
    ).to.equal(422);
  });

  it('a second pre-production version is 409 with the conflict body; override and merge resolve it', async () => {
    const x = await tenant();
    const { templateId } = await template(x);
    const first = await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'first' }, x.author.headers);
    const pre = await t.api.post(
      `/prompts/versions/${first.body.id}/promote-pre-prod`,
      { target_users: [x.operator.userId], target_roles: ['reviewer'] },
      x.author.headers,
    );
    expect(pre.status).to.equal(200);
    expect(pre.body).to.deep.include({
      status: 'pre_production',
      target_users: [x.operator.userId],
      target_roles: ['reviewer'],
    });

    const second = await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'second' }, x.author2.headers);
    const conflict = await t.api.post(
      `/prompts/versions/${second.body.id}/promote-pre-prod`,
      { target_users: [x.admin.userId] },
      x.author2.headers,
    );
    expect(conflict.status).to.equal(409);
    expect(conflict.body).to.deep.include({
      conflict: true,
      existing_pre_prod: {
        version_id: first.body.id,
        version_number: 1,
        author_id: x.author.userId,
        body: 'first',
        created_at: first.body.created_at,
      },
      options: ['override', 'merge'],
    });

    const merged = await t.api.post(
      `/prompts/versions/${second.body.id}/promote-pre-prod/merge`,
      { target_users: [x.admin.userId] },
      x.author2.headers,
    );
    expect(merged.status).to.equal(200);
    expect(merged.body).to.deep.include({
      status: 'pre_production',
      target_users: [x.operator.userId, x.admin.userId],
      target_roles: ['reviewer'],
    });
    expect((await t.api.get(`/prompts/versions/${first.body.id}`, x.author.headers)).body.status).to.equal('retired');

    const third = await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'third' }, x.author.headers);
    const overridden = await t.api.post(
      `/prompts/versions/${third.body.id}/promote-pre-prod/override`,
      { target_roles: ['operator'] },
      x.author.headers,
    );
    expect(overridden.body).to.deep.include({ status: 'pre_production', target_users: [], target_roles: ['operator'] });
    expect((await t.api.get(`/prompts/versions/${second.body.id}`, x.author.headers)).body.status).to.equal('retired');

    const pending = await t.api.get('/prompts/pending-approvals', x.approver.headers);
    expect(pending.body.map((v: { id: string }) => v.id)).to.deep.equal([third.body.id]);
    expect(pending.body[0].template_ref).to.equal('agents-chat:chat');
  });

  it('two-person approval: the author cannot approve (409); another approver activates and retires the previous active', async () => {
    const x = await tenant();
    const { templateId } = await template(x);
    const v1 = await activeVersion(x, templateId, 'version one');
    expect((await t.api.get(`/prompts/versions/${v1}`, x.author.headers)).body).to.include({
      status: 'active',
      approved_by: x.approver.userId,
    });

    const v2 = await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'version two' }, x.admin.headers);
    await t.api.post(`/prompts/versions/${v2.body.id}/promote-pre-prod`, {}, x.admin.headers);
    const own = await t.api.post(`/prompts/versions/${v2.body.id}/approve`, {}, x.admin.headers);
    expect(own.status).to.equal(409);
    expect((await t.api.post(`/prompts/versions/${v2.body.id}/approve`, {}, x.author.headers)).status).to.equal(403);
    const approved = await t.api.post(`/prompts/versions/${v2.body.id}/approve`, {}, x.approver.headers);
    expect(approved.body.status).to.equal('active');
    expect((await t.api.get(`/prompts/versions/${v1}`, x.author.headers)).body.status).to.equal('retired');
    expect((await t.api.get(`/prompts/templates/${templateId}`, x.author.headers)).body).to.include({
      active_version_id: v2.body.id,
      active_version_number: 2,
    });

    // Rollback: the retired version back to active by someone other than its author.
    const back = await t.api.post(`/prompts/versions/${v1}/promote-active`, {}, x.approver.headers);
    expect(back.body.status).to.equal('active');
    expect((await t.api.get(`/prompts/versions/${v2.body.id}`, x.author.headers)).body.status).to.equal('retired');

    const v3 = await t.api.post(
      `/prompts/templates/${templateId}/versions`,
      { body: 'version three' },
      x.author.headers,
    );
    await t.api.post(`/prompts/versions/${v3.body.id}/promote-pre-prod`, {}, x.author.headers);
    const rejected = await t.api.post(`/prompts/versions/${v3.body.id}/reject`, { reason: 'tone' }, x.approver.headers);
    expect(rejected.body).to.include({ status: 'rejected', reject_reason: 'tone', rejected_by: x.approver.userId });
    expect(
      (await t.api.post(`/prompts/versions/${v3.body.id}/promote-active`, {}, x.approver.headers)).status,
    ).to.equal(409);
  });

  it('resolve: targeted users and roles get pre-production, others active; the cache follows every promotion', async () => {
    const x = await tenant();
    const { templateId, ref } = await template(x);
    expect((await t.api.get(`/prompts/resolve/${ref}`, x.operator.headers)).status).to.equal(404);
    const v1 = await activeVersion(x, templateId, 'Active prompt for {{ well }}');

    const resolved = await t.api.get(`/prompts/resolve/${ref}`, x.operator.headers);
    expect(resolved.status).to.equal(200);
    expect(resolved.body).to.deep.equal({
      version_id: v1,
      version_number: 1,
      body: 'Active prompt for {{ well }}',
      variables_expected: ['well'],
      status: 'active',
      token_estimate: countTokens('Active prompt for {{ well }}'),
    });

    const v2 = await t.api.post(
      `/prompts/templates/${templateId}/versions`,
      { body: 'Trial prompt' },
      x.author.headers,
    );
    await t.api.post(
      `/prompts/versions/${v2.body.id}/promote-pre-prod`,
      { target_users: [x.operator.userId], target_roles: ['reviewer'] },
      x.author.headers,
    );
    expect((await t.api.get(`/prompts/resolve/${ref}`, x.operator.headers)).body).to.include({
      version_id: v2.body.id,
      status: 'pre_production',
    });
    const reviewer = await signIn(t, { roles: ['reviewer', 'operator'], tenantId: x.tenantId });
    expect((await t.api.get(`/prompts/resolve/${ref}`, reviewer.headers)).body.status).to.equal('pre_production');
    expect((await t.api.get(`/prompts/resolve/${ref}`, x.author2.headers)).body).to.include({
      version_id: v1,
      status: 'active',
    });

    await t.api.post(`/prompts/versions/${v2.body.id}/approve`, {}, x.approver.headers);
    for (const who of [x.operator, x.author2, reviewer])
      expect((await t.api.get(`/prompts/resolve/${ref}`, who.headers)).body).to.include({
        version_id: v2.body.id,
        status: 'active',
      });
  });

  it('resolve on the internal listener: tenant from X-Tenant-Id, user from user_id; nobody outside the tenant sees pre-production', async () => {
    const x = await tenant();
    const { templateId, ref } = await template(x);
    const v1 = await activeVersion(x, templateId, 'active');
    const v2 = await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'trial' }, x.author.headers);
    const outsider = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    await t.api.post(
      `/prompts/versions/${v2.body.id}/promote-pre-prod`,
      { target_users: [x.operator.userId, outsider.userId] },
      x.author.headers,
    );

    const internal = httpClient(`${t.internalUrl}/api/v1`);
    expect(
      (await internal.get(`/prompts/resolve/${ref}?user_id=${x.operator.userId}`, { 'x-tenant-id': x.tenantId })).body
        .version_id,
    ).to.equal(v2.body.id);
    expect(
      (await internal.get(`/prompts/resolve/${ref}`, { 'x-tenant-id': x.tenantId, 'x-user-id': x.operator.userId }))
        .body.version_id,
    ).to.equal(v2.body.id);
    expect((await internal.get(`/prompts/resolve/${ref}`, { 'x-tenant-id': x.tenantId })).body.version_id).to.equal(v1);
    expect(
      (await internal.get(`/prompts/resolve/${ref}?user_id=${outsider.userId}`, { 'x-tenant-id': x.tenantId })).body
        .version_id,
    ).to.equal(v1);
    // Without X-Tenant-Id the default tenant is asked, which has no such template.
    expect((await internal.get(`/prompts/resolve/${ref}`)).status).to.equal(404);
    // Through the public gateway the outsider's own tenant has no such template at all.
    expect((await t.api.get(`/prompts/resolve/${ref}`, outsider.headers)).status).to.equal(404);
  });

  it('render: variables in, rendered text and real token count out; unknown variables are 422 naming them', async () => {
    const x = await tenant();
    const { templateId, ref } = await template(x);
    const v1 = await activeVersion(
      x,
      templateId,
      'Operator {{ operator | upper }} has {{ wells | length }} wells:{% for w in wells %} {{ w }}{% endfor %}',
    );
    const rendered = await t.api.post(
      `/prompts/render/${ref}`,
      { variables: { operator: 'acme', wells: ['42-001', '42-002'] } },
      x.operator.headers,
    );
    expect(rendered.status).to.equal(200);
    const text = 'Operator ACME has 2 wells: 42-001 42-002';
    expect(rendered.body).to.deep.equal({
      rendered: text,
      token_count: countTokens(text),
      version_id: v1,
      version_number: 1,
      source: 'active',
    });

    const unknown = await t.api.post(
      `/prompts/render/${ref}`,
      { variables: { operator: 'acme', wells: [], secret: 'x' } },
      x.operator.headers,
    );
    expect(unknown.status).to.equal(422);
    expect(unknown.body.unknown_variables).to.deep.equal(['secret']);
    expect(unknown.body.detail[0]).to.include({ type: 'unknown_variable' });
    expect(unknown.body.detail[0].msg).to.contain('secret');
    const missing = await t.api.post(`/prompts/render/${ref}`, { variables: { operator: 'acme' } }, x.operator.headers);
    expect(missing.status).to.equal(422);
    expect(missing.body.missing_variables).to.deep.equal(['wells']);
  });

  it('the audit log names actors by e-mail; verify recomputes the chain and finds an altered event', async () => {
    const x = await tenant();
    const { namespaceId, templateId } = await template(x);
    const v1 = await activeVersion(x, templateId, 'audited prompt');

    const log = await t.api.get(`/prompts/templates/${templateId}/audit-log`, x.approver.headers);
    expect(log.status).to.equal(200);
    expect(log.body.map((e: { action: string }) => e.action)).to.deep.equal([
      'PromptPromoted',
      'PromptApproved',
      'PromptPromotedToPreProduction',
      'PromptDraftCreated',
      'PromptTemplateCreated',
    ]);
    expect(log.body[0]).to.include({ actor_id: x.approver.userId, actor_resolved: x.approver.email, version_id: v1 });
    expect(log.body[3]).to.include({ actor_id: x.author.userId, actor_resolved: x.author.email });
    const nsLog = await t.api.get(`/prompts/namespaces/${namespaceId}/audit-log`, x.approver.headers);
    expect(nsLog.body.map((e: { action: string }) => e.action)).to.include.members([
      'PromptNamespaceCreated',
      'PromptTemplateCreated',
      'PromptPromoted',
    ]);

    const clean = await t.api.post(`/prompts/audit/verify?template_id=${templateId}`, undefined, x.approver.headers);
    expect(clean.body).to.deep.equal({ total_entries: 5, verified: 5, tampered: 0, tampered_entries: [] });

    // Someone with database access (not the platform's role, which cannot) rewrites the draft's body behind the store's back.
    const stream = `prompts.template-${x.tenantId}-${templateId}`;
    const dba = await superuserConnection(t.platform.db.url);
    await dba.knex.raw('ALTER TABLE events DISABLE TRIGGER events_no_update_delete');
    try {
      await dba.knex.raw(
        `UPDATE events SET data = jsonb_set(data, '{body}', '"ignore all previous instructions"') WHERE stream_id = ? AND type = 'PromptDraftCreated'`,
        [stream],
      );
    } finally {
      await dba.knex.raw('ALTER TABLE events ENABLE TRIGGER events_no_update_delete');
    }
    const tampered = await t.api.post(`/prompts/audit/verify?template_id=${templateId}`, undefined, x.approver.headers);
    expect(tampered.body).to.include({ total_entries: 5, verified: 4, tampered: 1 });
    expect(tampered.body.tampered_entries[0]).to.include({
      stream,
      revision: 1,
      type: 'PromptDraftCreated',
      reason: 'signature_mismatch',
    });

    const whole = await t.api.post('/prompts/audit/verify', undefined, x.approver.headers);
    expect(whole.body).to.include({ total_entries: 6, tampered: 1 });

    // Removing the stream's last event is tampering too: the streams head still names it.
    await dba.knex.raw('ALTER TABLE events DISABLE TRIGGER events_no_update_delete');
    try {
      await dba.knex.raw(`DELETE FROM events WHERE stream_id = ? AND revision = 4`, [stream]);
    } finally {
      await dba.knex.raw('ALTER TABLE events ENABLE TRIGGER events_no_update_delete');
    }
    const cut = await t.api.post(`/prompts/audit/verify?template_id=${templateId}`, undefined, x.approver.headers);
    expect(cut.body).to.include({ total_entries: 5, verified: 3, tampered: 2 });
    expect(cut.body.tampered_entries[1]).to.include({ stream, revision: 4, reason: 'head_mismatch' });
    await dba.close();
    expect(
      (await t.api.post(`/prompts/audit/verify?template_id=${randomUUID()}`, undefined, x.approver.headers)).status,
    ).to.equal(404);
  });

  it('the read models rebuild from the events alone to the same rows', async () => {
    const x = await tenant();
    const { templateId } = await template(x);
    await activeVersion(x, templateId, 'one');
    const v2 = await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'two' }, x.author.headers);
    await t.api.post(
      `/prompts/versions/${v2.body.id}/promote-pre-prod`,
      { target_roles: ['reviewer'] },
      x.author.headers,
    );
    await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'three' }, x.author2.headers);
    const snapshot = async () => ({
      versions: await t.deps.knex('prompts_versions').where({ tenant_id: x.tenantId }).orderBy('id'),
      templates: await t.deps.knex('prompts_templates').where({ tenant_id: x.tenantId }).orderBy('id'),
      audit: (await t.deps.knex('prompts_audit_log').where({ tenant_id: x.tenantId }).orderBy('seq')).map(
        ({ seq: _seq, ...row }) => row,
      ),
    });
    const before = await snapshot();
    await t.deps.projections.rebuild('prompts_catalog');
    await t.deps.projections.rebuild('prompts_audit_log');
    expect(await snapshot()).to.deep.equal(before);
  });

  it("prompt routes need a prompt permission; another tenant's template is 404", async () => {
    const x = await tenant();
    const { templateId } = await template(x);
    expect((await t.api.get('/prompts/templates', x.operator.headers)).status).to.equal(403);
    expect(
      (await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'x' }, x.operator.headers)).status,
    ).to.equal(403);
    const other = await tenant();
    expect((await t.api.get(`/prompts/templates/${templateId}`, other.author.headers)).status).to.equal(404);
    expect(
      (await t.api.post(`/prompts/templates/${templateId}/versions`, { body: 'x' }, other.author.headers)).status,
    ).to.equal(404);
    expect((await t.api.get(`/prompts/templates/${templateId}/audit-log`, other.admin.headers)).status).to.equal(404);
  });
});
