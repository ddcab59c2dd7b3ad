import { Request, Router } from 'express';
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
import { PromoteMode, promotePreProduction, PromotePreProductionBody } from '../../../commands/prompts/promote-pre-production';
import { rejectVersion, RejectVersionBody } from '../../../commands/prompts/reject-version';
import { saveDraft, SaveDraftBody } from '../../../commands/prompts/save-draft';
import { updateBudgetTier } from '../../../commands/prompts/update-budget-tier';
import { updateNamespace, UpdateNamespaceBody } from '../../../commands/prompts/update-namespace';
import { updateTemplate, UpdateTemplateBody } from '../../../commands/prompts/update-template';
import { hasAuditEntries, listPromptAudit } from '../../../queries/prompts/audit-log';
import { findNamespace, getNamespace, listNamespaces, listTiers } from '../../../queries/prompts/namespaces';
import { Caller, renderForCaller, resolveForCaller } from '../../../queries/prompts/render-prompt';
import { getTemplate, listTemplates } from '../../../queries/prompts/templates';
import { verifyPromptAudit } from '../../../queries/prompts/verify-audit';
import { findMyDraft, getVersion, listPendingApprovals, listVersions, templateOfVersion } from '../../../queries/prompts/versions';
import { findUserInTenant } from '../../../queries/identity/user-directory';
import { DEFAULT_TENANT_ID } from '../../../streams/identity/tenant';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound } from '../../platform/domain-errors';
import { commandContext } from '../../platform/http/command-context';
import { requireIdentity } from '../../platform/http/identity';
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


function requireAnyOf(req: Request, deps: PlatformDeps, permissions: string[]): void {
  const identity = requireIdentity(req);
  if (permissions.some((p) => identity.permissions.includes(p))) return;
  requirePermission(req, permissions[0], deps);
}

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
    return user && user.status === 'active' ? { tenantId, userId, roles: user.roles } : { tenantId, userId: null, roles: [] };
  }

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

  // Namespaces and budget tiers.
  router.get('/prompts/namespaces', async (req, res) => {
    requireAnyOf(req, deps, [AUTHOR, APPROVE]);
    res.json(await listNamespaces(knex, requireIdentity(req).tenantId));
  });

  router.post('/prompts/namespaces', async (req, res) => {
    requirePermission(req, APPROVE, deps);
    const body = parseBody(req, CreateNamespaceBody);
    const context = commandContext(req);
    const id = await createNamespace(deps, context, body);
    res.status(201).json(await getNamespace(knex, context.tenantId, id));
  });

  router.get('/prompts/namespaces/:id', async (req, res) => {
    requireAnyOf(req, deps, [AUTHOR, APPROVE]);
    const { id } = parseParams(req, Id);
    res.json(await getNamespace(knex, requireIdentity(req).tenantId, id));
  });

  router.put('/prompts/namespaces/:id', async (req, res) => {
    requirePermission(req, APPROVE, deps);
    const { id } = parseParams(req, Id);
    const body = parseBody(req, UpdateNamespaceBody);
    const context = commandContext(req);
    await updateNamespace(deps, context, id, body);
    res.json(await getNamespace(knex, context.tenantId, id));
  });

  router.get('/prompts/namespaces/:id/tiers', async (req, res) => {
    requireAnyOf(req, deps, [AUTHOR, APPROVE]);
    const { id } = parseParams(req, Id);
    const { tenantId } = requireIdentity(req);
    if (!(await findNamespace(knex, tenantId, id))) throw new NotFound('Prompt namespace not found');
    res.json(await listTiers(knex, tenantId, id));
  });

  router.post('/prompts/namespaces/:id/tiers', async (req, res) => {
    requirePermission(req, APPROVE, deps);
    const { id } = parseParams(req, Id);
    const body = parseBody(req, BudgetTierBody);
    const context = commandContext(req);
    const tierId = await createBudgetTier(deps, context, id, body);
    res.status(201).json((await listTiers(knex, context.tenantId, id)).find((t) => t.id === tierId));
  });

  router.put('/prompts/namespaces/:id/tiers/:tid', async (req, res) => {
    requirePermission(req, APPROVE, deps);
    const { id, tid } = parseParams(req, TierParams);
    const body = parseBody(req, BudgetTierBody);
    const context = commandContext(req);
    await updateBudgetTier(deps, context, id, tid, body);
    res.json((await listTiers(knex, context.tenantId, id)).find((t) => t.id === tid));
  });

  router.delete('/prompts/namespaces/:id/tiers/:tid', async (req, res) => {
    requirePermission(req, APPROVE, deps);
    const { id, tid } = parseParams(req, TierParams);
    await deleteBudgetTier(deps, commandContext(req), id, tid);
    res.json({ id: tid, status: 'deleted' });
  });

  // Templates.
  router.get('/prompts/templates', async (req, res) => {
    requireAnyOf(req, deps, [AUTHOR, APPROVE]);
    res.json(await listTemplates(knex, requireIdentity(req).tenantId, parseQuery(req, TemplatesQuery)));
  });

  router.post('/prompts/templates', async (req, res) => {
    requirePermission(req, AUTHOR, deps);
    const body = parseBody(req, CreateTemplateBody);
    const context = commandContext(req);
    const id = await createTemplate(deps, context, body);
    res.status(201).json(await getTemplate(knex, context.tenantId, id));
  });

  router.get('/prompts/templates/:id', async (req, res) => {
    requireAnyOf(req, deps, [AUTHOR, APPROVE]);
    const { id } = parseParams(req, Id);
    res.json(await getTemplate(knex, requireIdentity(req).tenantId, id));
  });

  router.put('/prompts/templates/:id', async (req, res) => {
    requirePermission(req, AUTHOR, deps);
    const { id } = parseParams(req, Id);
    const body = parseBody(req, UpdateTemplateBody);
    const context = commandContext(req);
    const template = await getTemplate(knex, context.tenantId, id);
    await updateTemplate(deps, context, id, template.namespace_id, body);
    res.json(await getTemplate(knex, context.tenantId, id));
  });

  router.delete('/prompts/templates/:id', async (req, res) => {
    requirePermission(req, AUTHOR, deps);
    const { id } = parseParams(req, Id);
    const context = commandContext(req);
    await deleteTemplate(deps, context, await getTemplate(knex, context.tenantId, id));
    res.json({ id, status: 'deleted' });
  });

  // Versions.
  router.get('/prompts/templates/:id/versions', async (req, res) => {
    requireAnyOf(req, deps, [AUTHOR, APPROVE]);
    const { id } = parseParams(req, Id);
    const { tenantId } = requireIdentity(req);
    await getTemplate(knex, tenantId, id);
    res.json(await listVersions(knex, tenantId, id));
  });

  router.post('/prompts/templates/:id/versions', async (req, res) => {
    requirePermission(req, AUTHOR, deps);
    const { id } = parseParams(req, Id);
    const body = parseBody(req, CreateDraftBody);
    const context = commandContext(req);
    const versionId = await createDraft(deps, context, id, body);
    res.status(201).json(await getVersion(knex, context.tenantId, versionId));
  });

  router.get('/prompts/templates/:id/my-draft', async (req, res) => {
    requirePermission(req, AUTHOR, deps);
    const { id } = parseParams(req, Id);
    const { tenantId, userId } = requireIdentity(req);
    await getTemplate(knex, tenantId, id);
    const draft = await findMyDraft(knex, tenantId, id, userId);
    if (!draft) throw new NotFound('You have no draft of this template');
    res.json(draft);
  });

  router.get('/prompts/versions/:id', async (req, res) => {
    requireAnyOf(req, deps, [AUTHOR, APPROVE]);
    const { id } = parseParams(req, Id);
    res.json(await getVersion(knex, requireIdentity(req).tenantId, id));
  });

  router.put('/prompts/versions/:id/save-draft', async (req, res) => {
    requirePermission(req, AUTHOR, deps);
    const { id } = parseParams(req, Id);
    const body = parseBody(req, SaveDraftBody);
    const context = commandContext(req);
    await saveDraft(deps, context, await templateOfVersion(knex, context.tenantId, id), id, body);
    res.json(await getVersion(knex, context.tenantId, id));
  });

  router.delete('/prompts/versions/:id/discard', async (req, res) => {
    requirePermission(req, AUTHOR, deps);
    const { id } = parseParams(req, Id);
    const context = commandContext(req);
    await discardDraft(deps, context, await templateOfVersion(knex, context.tenantId, id), id);
    res.json({ id, status: 'discarded' });
  });

  const promote = (mode: PromoteMode) => async (req: Request, res: import('express').Response) => {
    requirePermission(req, AUTHOR, deps);
    const { id } = parseParams(req, Id);
    const body = parseBody(req, PromotePreProductionBody);
    const context = commandContext(req);
    await promotePreProduction(deps, context, await templateOfVersion(knex, context.tenantId, id), id, body, mode);
    res.json(await getVersion(knex, context.tenantId, id));
  };
  router.post('/prompts/versions/:id/promote-pre-prod', promote('plain'));
  router.post('/prompts/versions/:id/promote-pre-prod/override', promote('override'));
  router.post('/prompts/versions/:id/promote-pre-prod/merge', promote('merge'));

  router.post('/prompts/versions/:id/promote-active', async (req, res) => {
    requirePermission(req, APPROVE, deps);
    const { id } = parseParams(req, Id);
    const context = commandContext(req);
    await promoteActive(deps, context, await templateOfVersion(knex, context.tenantId, id), id);
    res.json(await getVersion(knex, context.tenantId, id));
  });

  router.post('/prompts/versions/:id/approve', async (req, res) => {
    requirePermission(req, APPROVE, deps);
    const { id } = parseParams(req, Id);
    const context = commandContext(req);
    await approveVersion(deps, context, await templateOfVersion(knex, context.tenantId, id), id);
    res.json(await getVersion(knex, context.tenantId, id));
  });

  router.post('/prompts/versions/:id/reject', async (req, res) => {
    requirePermission(req, APPROVE, deps);
    const { id } = parseParams(req, Id);
    const body = parseBody(req, RejectVersionBody);
    const context = commandContext(req);
    await rejectVersion(deps, context, await templateOfVersion(knex, context.tenantId, id), id, body);
    res.json(await getVersion(knex, context.tenantId, id));
  });

  router.get('/prompts/pending-approvals', async (req, res) => {
    requireAnyOf(req, deps, [APPROVE, AUTHOR]);
    res.json(await listPendingApprovals(knex, requireIdentity(req).tenantId));
  });

  // Audit.
  router.get('/prompts/templates/:id/audit-log', async (req, res) => {
    requireAnyOf(req, deps, [APPROVE, AUTHOR]);
    const { id } = parseParams(req, Id);
    const { tenantId } = requireIdentity(req);
    // A deleted template's trail stays readable; an id never seen in the tenant is 404.
    if (!(await hasAuditEntries(knex, tenantId, { templateId: id }))) throw new NotFound('Prompt template not found');
    res.json(await listPromptAudit(knex, tenantId, { templateId: id }, parseQuery(req, AuditQuery)));
  });

  router.get('/prompts/namespaces/:id/audit-log', async (req, res) => {
    requireAnyOf(req, deps, [APPROVE, AUTHOR]);
    const { id } = parseParams(req, Id);
    const { tenantId } = requireIdentity(req);
    if (!(await hasAuditEntries(knex, tenantId, { namespaceId: id }))) throw new NotFound('Prompt namespace not found');
    res.json(await listPromptAudit(knex, tenantId, { namespaceId: id }, parseQuery(req, AuditQuery)));
  });

  router.post('/prompts/audit/verify', async (req, res) => {
    requireAnyOf(req, deps, [APPROVE, AUTHOR]);
    const { template_id } = parseQuery(req, VerifyQuery);
    const { tenantId } = requireIdentity(req);
    if (template_id && !(await hasAuditEntries(knex, tenantId, { templateId: template_id }))) throw new NotFound('Prompt template not found');
    res.json(await verifyPromptAudit(deps, tenantId, template_id));
  });

  return router;
}
