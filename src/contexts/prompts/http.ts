import { type Request, Router } from 'express';
import { approveVersion } from '../../../commands/prompts/approve-version';
import { BudgetTierBody } from '../../../commands/prompts/budget-tier-fields';
import { createBudgetTier } from '../../../commands/prompts/create-budget-tier';
import { createDraft, CreateDraftBody } from '../../../commands/prompts/create-draft';
import { createNamespace, CreateNamespaceBody } from '../../../commands/prompts/create-namespace';
import { createTemplate, CreateTemplateBody } from '../../../commands/prompts/create-template';
import { deleteBudgetTier } from '../../../commands/prompts/delete-budget-tier';
import { deleteTemplate } from '../../../commands/prompts/delete-template';
import { discardDraft } from '../../../commands/prompts/discard-draft';
import { promoteActive } from '../../../commands/prompts/promote-active';
import {
  type PromoteMode,
  promotePreProduction,
  PromotePreProductionBody,
} from '../../../commands/prompts/promote-pre-production';
import { rejectVersion, RejectVersionBody } from '../../../commands/prompts/reject-version';
import { saveDraft, SaveDraftBody } from '../../../commands/prompts/save-draft';
import { updateBudgetTier } from '../../../commands/prompts/update-budget-tier';
import { updateNamespace, UpdateNamespaceBody } from '../../../commands/prompts/update-namespace';
import { updateTemplate, UpdateTemplateBody } from '../../../commands/prompts/update-template';
import { hasAuditEntries, listPromptAudit } from '../../../queries/prompts/audit-log';
import { findNamespace, getNamespace, listNamespaces, listTiers } from '../../../queries/prompts/namespaces';
import { type Caller, renderForCaller, resolveForCaller } from '../../../queries/prompts/render-prompt';
import { getTemplate, listTemplates } from '../../../queries/prompts/templates';
import { verifyPromptAudit } from '../../../queries/prompts/verify-audit';
import {
  findMyDraft,
  getVersion,
  listPendingApprovals,
  listVersions,
  templateOfVersion,
} from '../../../queries/prompts/versions';
import { findUserInTenant } from '../../../queries/identity/user-directory';
import { DEFAULT_TENANT_ID } from '../../../streams/identity/tenant';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';
import { declareRoutes } from '../../platform/http/route';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity';
import type { ResolvedIdentity } from '../../../commands/identity/resolver';
import { AuditQuery, Id, RefParams, RenderBody, TemplatesQuery, TierParams, UserQuery, VerifyQuery } from './schemas';

/**
 * Prompt management. Authoring needs `prompts.author`, approval,
 * promotion to active, namespaces and budget tiers need `prompts.approve`; reads need
 * either. Resolve and render (the agents' hot path) serve every signed-in user on the
 * public listener and, on the internal one, any local service naming the tenant
 * (`X-Tenant-Id`, else the default tenant) and optionally the user (`X-User-Id`, query or
 * body `user_id`).
 */
const AUTHOR = 'prompts.author';
const APPROVE = 'prompts.approve';

type Listener = 'public' | 'internal';

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function createPromptsApi(deps: PlatformDeps, listener: Listener): Router {
  const { knex } = deps;
  const router = Router();

  /**
   * Who resolves: on the public listener the signed-in user with the token's roles; on the
   * internal one the named tenant and user, whose roles come from the user directory. A
   * user unknown in that tenant resolves as no user (active versions only), so nobody
   * outside a tenant is ever served its pre-production versions.
   */
  async function resolveCaller(req: Request, named: string | undefined): Promise<Caller> {
    if (listener === 'public') {
      const identity = requireIdentity(req);
      const resolved = (req.res?.locals.identity as ResolvedIdentity | undefined) ?? null;
      return { tenantId: identity.tenantId, userId: identity.userId, roles: resolved?.roles ?? [] };
    }
    const tenantId = single(req.headers['x-tenant-id']) || DEFAULT_TENANT_ID;
    const userId = single(req.headers['x-user-id']) || named;
    if (!userId) return { tenantId, userId: null, roles: [] };
    const user = await findUserInTenant(knex, tenantId, userId).catch(() => null);
    return user && user.status === 'active'
      ? { tenantId, userId, roles: user.roles }
      : { tenantId, userId: null, roles: [] };
  }

  // Custom bodies: who resolves differs by listener and, on the internal one, comes from the
  // parsed query or body and the user directory (see resolveCaller); a declared caller reading
  // runs before anything is parsed.
  router.get('/prompts/resolve/:ref', async (req, res) => {
    const { ref } = parseParams(req, RefParams);
    const { user_id } = parseQuery(req, UserQuery);
    res.json(await resolveForCaller(deps, await resolveCaller(req, user_id), ref));
  });

  router.post('/prompts/render/:ref', async (req, res) => {
    const { ref } = parseParams(req, RefParams);
    const body = parseBody(req, RenderBody);
    res.json(await renderForCaller(deps, await resolveCaller(req, body.user_id), ref, body.variables));
  });

  if (listener === 'internal') return router;

  const route = declareRoutes(router, deps, requirePermission);
  const READ = [AUTHOR, APPROVE];
  type Scoped = { context: { tenantId: string }; params: { id: string } };
  const namespace = (_: unknown, { context, params }: Scoped) => getNamespace(knex, context.tenantId, params.id);
  const template = (_: unknown, { context, params }: Scoped) => getTemplate(knex, context.tenantId, params.id);
  const version = (_: unknown, { context, params }: Scoped) => getVersion(knex, context.tenantId, params.id);
  const tier = (tierId: string, { context, params }: Scoped) =>
    listTiers(knex, context.tenantId, params.id).then((tiers) => tiers.find((t) => t.id === tierId));
  /** A version's stream is addressed under its template: the command needs the template's id. */
  const templateOf = ({ context, params }: Scoped) => templateOfVersion(knex, context.tenantId, params.id);

  // Namespaces and budget tiers.
  route.get('/prompts/namespaces', {
    permission: READ,
    read: ({ identity }) => listNamespaces(knex, identity.tenantId),
  });

  route.post('/prompts/namespaces', {
    permission: APPROVE,
    body: CreateNamespaceBody,
    status: 201,
    command: ({ context, body }) => createNamespace(deps, context, body),
    respond: (id, { context }) => getNamespace(knex, context.tenantId, id),
  });

  route.get('/prompts/namespaces/:id', { permission: READ, params: Id, read: (input) => namespace(null, input) });

  route.put('/prompts/namespaces/:id', {
    permission: APPROVE,
    params: Id,
    body: UpdateNamespaceBody,
    command: ({ context, params, body }) => updateNamespace(deps, context, params.id, body),
    respond: namespace,
  });

  route.get('/prompts/namespaces/:id/tiers', {
    permission: READ,
    params: Id,
    read: async ({ identity, params }) => {
      if (!(await findNamespace(knex, identity.tenantId, params.id))) throw new NotFound('Prompt namespace not found');
      return listTiers(knex, identity.tenantId, params.id);
    },
  });

  route.post('/prompts/namespaces/:id/tiers', {
    permission: APPROVE,
    params: Id,
    body: BudgetTierBody,
    status: 201,
    command: ({ context, params, body }) => createBudgetTier(deps, context, params.id, body),
    respond: tier,
  });

  route.put('/prompts/namespaces/:id/tiers/:tid', {
    permission: APPROVE,
    params: TierParams,
    body: BudgetTierBody,
    command: ({ context, params, body }) => updateBudgetTier(deps, context, params.id, params.tid, body),
    respond: (_, input) => tier(input.params.tid, input),
  });

  route.delete('/prompts/namespaces/:id/tiers/:tid', {
    permission: APPROVE,
    params: TierParams,
    command: ({ context, params }) => deleteBudgetTier(deps, context, params.id, params.tid),
    respond: (_, { params }) => ({ id: params.tid, status: 'deleted' }),
  });

  // Templates.
  route.get('/prompts/templates', {
    permission: READ,
    query: TemplatesQuery,
    read: ({ identity, query }) => listTemplates(knex, identity.tenantId, query),
  });

  route.post('/prompts/templates', {
    permission: AUTHOR,
    body: CreateTemplateBody,
    status: 201,
    command: ({ context, body }) => createTemplate(deps, context, body),
    respond: (id, { context }) => getTemplate(knex, context.tenantId, id),
  });

  route.get('/prompts/templates/:id', { permission: READ, params: Id, read: (input) => template(null, input) });

  route.put('/prompts/templates/:id', {
    permission: AUTHOR,
    params: Id,
    body: UpdateTemplateBody,
    // A budget tier named in the body must be one of the template's namespace: the command needs it.
    command: async (input) =>
      updateTemplate(deps, input.context, input.params.id, (await template(null, input)).namespace_id, input.body),
    respond: template,
  });

  route.delete('/prompts/templates/:id', {
    permission: AUTHOR,
    params: Id,
    command: async (input) => deleteTemplate(deps, input.context, await template(null, input)),
    respond: (_, { params }) => ({ id: params.id, status: 'deleted' }),
  });

  // Versions.
  route.get('/prompts/templates/:id/versions', {
    permission: READ,
    params: Id,
    read: async (input) => {
      await template(null, input);
      return listVersions(knex, input.identity.tenantId, input.params.id);
    },
  });

  route.post('/prompts/templates/:id/versions', {
    permission: AUTHOR,
    params: Id,
    body: CreateDraftBody,
    status: 201,
    command: ({ context, params, body }) => createDraft(deps, context, params.id, body),
    respond: (versionId, { context }) => getVersion(knex, context.tenantId, versionId),
  });

  route.get('/prompts/templates/:id/my-draft', {
    permission: AUTHOR,
    params: Id,
    read: async (input) => {
      await template(null, input);
      return findMyDraft(knex, input.identity.tenantId, input.params.id, input.identity.userId);
    },
    notFound: 'You have no draft of this template',
  });

  route.get('/prompts/versions/:id', { permission: READ, params: Id, read: (input) => version(null, input) });

  route.put('/prompts/versions/:id/save-draft', {
    permission: AUTHOR,
    params: Id,
    body: SaveDraftBody,
    command: async (input) => saveDraft(deps, input.context, await templateOf(input), input.params.id, input.body),
    respond: version,
  });

  route.delete('/prompts/versions/:id/discard', {
    permission: AUTHOR,
    params: Id,
    command: async (input) => discardDraft(deps, input.context, await templateOf(input), input.params.id),
    respond: (_, { params }) => ({ id: params.id, status: 'discarded' }),
  });

  for (const [path, mode] of [
    ['', 'plain'],
    ['/override', 'override'],
    ['/merge', 'merge'],
  ] as const) {
    route.post(`/prompts/versions/:id/promote-pre-prod${path}`, {
      permission: AUTHOR,
      params: Id,
      body: PromotePreProductionBody,
      command: async (input) =>
        promotePreProduction(
          deps,
          input.context,
          await templateOf(input),
          input.params.id,
          input.body,
          mode as PromoteMode,
        ),
      respond: version,
    });
  }

  route.post('/prompts/versions/:id/promote-active', {
    permission: APPROVE,
    params: Id,
    command: async (input) => promoteActive(deps, input.context, await templateOf(input), input.params.id),
    respond: version,
  });

  route.post('/prompts/versions/:id/approve', {
    permission: APPROVE,
    params: Id,
    command: async (input) => approveVersion(deps, input.context, await templateOf(input), input.params.id),
    respond: version,
  });

  route.post('/prompts/versions/:id/reject', {
    permission: APPROVE,
    params: Id,
    body: RejectVersionBody,
    command: async (input) => rejectVersion(deps, input.context, await templateOf(input), input.params.id, input.body),
    respond: version,
  });

  route.get('/prompts/pending-approvals', {
    permission: [APPROVE, AUTHOR],
    read: ({ identity }) => listPendingApprovals(knex, identity.tenantId),
  });

  // Audit. A deleted template's trail stays readable; an id never seen in the tenant is 404.
  route.get('/prompts/templates/:id/audit-log', {
    permission: [APPROVE, AUTHOR],
    params: Id,
    query: AuditQuery,
    read: async ({ identity, params, query }) => {
      if (!(await hasAuditEntries(knex, identity.tenantId, { templateId: params.id })))
        throw new NotFound('Prompt template not found');
      return listPromptAudit(knex, identity.tenantId, { templateId: params.id }, query);
    },
  });

  route.get('/prompts/namespaces/:id/audit-log', {
    permission: [APPROVE, AUTHOR],
    params: Id,
    query: AuditQuery,
    read: async ({ identity, params, query }) => {
      if (!(await hasAuditEntries(knex, identity.tenantId, { namespaceId: params.id })))
        throw new NotFound('Prompt namespace not found');
      return listPromptAudit(knex, identity.tenantId, { namespaceId: params.id }, query);
    },
  });

  route.search('/prompts/audit/verify', {
    permission: [APPROVE, AUTHOR],
    query: VerifyQuery,
    read: async ({ identity, query }) => {
      if (query.template_id && !(await hasAuditEntries(knex, identity.tenantId, { templateId: query.template_id })))
        throw new NotFound('Prompt template not found');
      return verifyPromptAudit(deps, identity.tenantId, query.template_id);
    },
  });

  return router;
}
