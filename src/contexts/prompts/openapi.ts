import { identityHeader } from '../../platform/http/bounded';
import { z, type ApiDescription, type RouteDescription } from '../../platform/openapi/describe';
import { BudgetTierBody } from '../../../commands/prompts/budget-tier-fields';
import { CreateDraftBody } from '../../../commands/prompts/create-draft';
import { CreateNamespaceBody } from '../../../commands/prompts/create-namespace';
import { CreateTemplateBody } from '../../../commands/prompts/create-template';
import { PromotePreProductionBody } from '../../../commands/prompts/promote-pre-production';
import { RejectVersionBody } from '../../../commands/prompts/reject-version';
import { SaveDraftBody } from '../../../commands/prompts/save-draft';
import { UpdateNamespaceBody } from '../../../commands/prompts/update-namespace';
import { UpdateTemplateBody } from '../../../commands/prompts/update-template';
import {
  AuditQuery,
  Id,
  RefPathParams,
  RenderBody,
  TemplatesQuery,
  TierParams,
  UserQuery,
  VerifyQuery,
} from './schemas';

/** Prompt management in the API contract; schemas are the router's own. */
const ts = z.string().nullable();
const Tier = z
  .object({
    id: z.string(),
    namespace_id: z.string(),
    name: z.string(),
    max_tokens: z.number().int(),
    description: z.string().nullable(),
    created_at: ts,
    updated_at: ts,
  })
  .openapi('PromptBudgetTier');
const Namespace = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    created_by: z.string().nullable(),
    created_at: ts,
    updated_at: ts,
  })
  .openapi('PromptNamespace');
const NamespaceWithTiers = Namespace.extend({ tiers: z.array(Tier) }).openapi('PromptNamespaceWithTiers');
const Template = z
  .object({
    id: z.string(),
    namespace_id: z.string(),
    namespace: z.string(),
    slug: z.string(),
    ref: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    budget_tier_id: z.string().nullable(),
    variables: z.array(z.unknown()).nullable(),
    created_by: z.string().nullable(),
    created_at: ts,
    updated_at: ts,
    active_version_id: z.string().nullable(),
    active_version_number: z.number().int().nullable(),
    pre_production_version_id: z.string().nullable(),
  })
  .openapi('PromptTemplate');
const Validation = z
  .object({
    valid: z.boolean(),
    syntax_ok: z.boolean(),
    subset_ok: z.boolean(),
    injection_scan: z.unknown(),
    token_estimate: z.number(),
    variables_extracted: z.array(z.string()),
    unknown_variables: z.array(z.string()),
    errors: z.array(z.unknown()),
    warnings: z.array(z.unknown()),
  })
  .openapi('PromptValidation');
const Version = z
  .object({
    id: z.string(),
    template_id: z.string(),
    version_number: z.number().int(),
    status: z.string(),
    body: z.string(),
    rendered_token_estimate: z.number(),
    validation_result: Validation,
    author_id: z.string(),
    created_at: z.string(),
    updated_at: ts,
    change_note: z.string().nullable(),
    target_users: z.array(z.string()).nullable(),
    target_roles: z.array(z.string()).nullable(),
    pre_production_at: ts,
    approved_by: ts,
    approved_at: ts,
    rejected_by: ts,
    rejected_at: ts,
    reject_reason: ts,
    promoted_by: ts,
    promoted_at: ts,
    retired_at: ts,
  })
  .openapi('PromptVersion');
const AuditEntry = z
  .object({
    id: z.string(),
    action: z.string(),
    actor_id: z.string(),
    actor_resolved: z.string().nullable(),
    namespace_id: z.string().nullable(),
    template_id: z.string().nullable(),
    version_id: z.string().nullable(),
    details: z.unknown(),
    stream_revision: z.number().int(),
    at: z.string(),
  })
  .openapi('PromptAuditEntry');
const Resolved = z
  .object({
    version_id: z.string(),
    version_number: z.number().int(),
    body: z.string(),
    variables_expected: z.array(z.string()).nullable(),
    status: z.string(),
    token_estimate: z.number(),
  })
  .openapi('ResolvedPrompt');
const Rendered = z
  .object({
    rendered: z.string(),
    token_count: z.number().int(),
    version_id: z.string(),
    version_number: z.number().int(),
    source: z.string(),
  })
  .openapi('RenderedPrompt');
const gone = (status: 'deleted' | 'discarded') => z.object({ id: z.string(), status: z.literal(status) });

const hotPath = (internal: boolean): RouteDescription[] => {
  const headers = internal
    ? z.object({
        'x-tenant-id': identityHeader('x-tenant-id').optional(),
        'x-user-id': identityHeader('x-user-id').optional(),
      })
    : undefined;
  const note = internal
    ? 'Internal listener: the tenant from `X-Tenant-Id` (else the default tenant), the user from `X-User-Id` or `user_id`.'
    : undefined;
  return [
    {
      method: 'get',
      path: '/prompts/resolve/:ns::slug',
      summary: "The caller's serveable version of `namespace:slug`",
      description: note,
      params: RefPathParams,
      query: UserQuery,
      headers,
      responses: { 200: Resolved },
    },
    {
      method: 'post',
      path: '/prompts/render/:ns::slug',
      summary: "Render the caller's version with variables (sandboxed)",
      description: note,
      params: RefPathParams,
      headers,
      body: RenderBody,
      responses: { 200: Rendered },
    },
  ];
};

export const promptsApi: ApiDescription = {
  tag: 'prompts',
  internal: () => hotPath(true),
  public: () => [
    ...hotPath(false),
    {
      method: 'get',
      path: '/prompts/namespaces',
      summary: 'Prompt namespaces (prompts.author or prompts.approve)',
      responses: { 200: z.array(Namespace) },
    },
    {
      method: 'post',
      path: '/prompts/namespaces',
      summary: 'Create a namespace (prompts.approve)',
      body: CreateNamespaceBody,
      responses: { 201: NamespaceWithTiers },
    },
    {
      method: 'get',
      path: '/prompts/namespaces/:id',
      summary: 'A namespace with its budget tiers',
      params: Id,
      responses: { 200: NamespaceWithTiers },
    },
    {
      method: 'put',
      path: '/prompts/namespaces/:id',
      summary: 'Change a namespace (prompts.approve)',
      params: Id,
      body: UpdateNamespaceBody,
      responses: { 200: NamespaceWithTiers },
    },
    {
      method: 'get',
      path: '/prompts/namespaces/:id/tiers',
      summary: "A namespace's budget tiers",
      params: Id,
      responses: { 200: z.array(Tier) },
    },
    {
      method: 'post',
      path: '/prompts/namespaces/:id/tiers',
      summary: 'Create a budget tier (prompts.approve)',
      params: Id,
      body: BudgetTierBody,
      responses: { 201: Tier },
    },
    {
      method: 'put',
      path: '/prompts/namespaces/:id/tiers/:tid',
      summary: 'Change a budget tier (prompts.approve)',
      params: TierParams,
      body: BudgetTierBody,
      responses: { 200: Tier },
    },
    {
      method: 'delete',
      path: '/prompts/namespaces/:id/tiers/:tid',
      summary: 'Delete a budget tier (prompts.approve)',
      params: TierParams,
      responses: { 200: gone('deleted') },
    },
    {
      method: 'get',
      path: '/prompts/templates',
      summary: 'Prompt templates',
      query: TemplatesQuery,
      responses: { 200: z.array(Template) },
    },
    {
      method: 'post',
      path: '/prompts/templates',
      summary: 'Create a template (prompts.author)',
      body: CreateTemplateBody,
      responses: { 201: Template },
    },
    {
      method: 'get',
      path: '/prompts/templates/:id',
      summary: 'One template',
      params: Id,
      responses: { 200: Template },
    },
    {
      method: 'put',
      path: '/prompts/templates/:id',
      summary: 'Change a template (prompts.author)',
      params: Id,
      body: UpdateTemplateBody,
      responses: { 200: Template },
    },
    {
      method: 'delete',
      path: '/prompts/templates/:id',
      summary: 'Delete a template (prompts.author)',
      params: Id,
      responses: { 200: gone('deleted') },
    },
    {
      method: 'get',
      path: '/prompts/templates/:id/versions',
      summary: "A template's versions",
      params: Id,
      responses: { 200: z.array(Version) },
    },
    {
      method: 'post',
      path: '/prompts/templates/:id/versions',
      summary: 'Start a draft version (prompts.author; one draft per author)',
      params: Id,
      body: CreateDraftBody,
      responses: { 201: Version },
    },
    {
      method: 'get',
      path: '/prompts/templates/:id/my-draft',
      summary: "The caller's open draft of a template",
      params: Id,
      responses: { 200: Version },
    },
    { method: 'get', path: '/prompts/versions/:id', summary: 'One version', params: Id, responses: { 200: Version } },
    {
      method: 'put',
      path: '/prompts/versions/:id/save-draft',
      summary: "Save a draft's body (validated)",
      params: Id,
      body: SaveDraftBody,
      responses: { 200: Version },
    },
    {
      method: 'delete',
      path: '/prompts/versions/:id/discard',
      summary: 'Discard a draft',
      params: Id,
      responses: { 200: gone('discarded') },
    },
    {
      method: 'post',
      path: '/prompts/versions/:id/promote-pre-prod',
      summary: 'Promote a draft to pre-production for a test audience',
      params: Id,
      body: PromotePreProductionBody,
      responses: { 200: Version },
    },
    {
      method: 'post',
      path: '/prompts/versions/:id/promote-pre-prod/override',
      summary: 'Promote to pre-production, replacing the current one',
      params: Id,
      body: PromotePreProductionBody,
      responses: { 200: Version },
    },
    {
      method: 'post',
      path: '/prompts/versions/:id/promote-pre-prod/merge',
      summary: 'Promote to pre-production, merging the audiences',
      params: Id,
      body: PromotePreProductionBody,
      responses: { 200: Version },
    },
    {
      method: 'post',
      path: '/prompts/versions/:id/promote-active',
      summary: 'Make a version active (prompts.approve)',
      params: Id,
      responses: { 200: Version },
    },
    {
      method: 'post',
      path: '/prompts/versions/:id/approve',
      summary: 'Approve a pre-production version (prompts.approve)',
      params: Id,
      responses: { 200: Version },
    },
    {
      method: 'post',
      path: '/prompts/versions/:id/reject',
      summary: 'Reject a pre-production version with a reason',
      params: Id,
      body: RejectVersionBody,
      responses: { 200: Version },
    },
    {
      method: 'get',
      path: '/prompts/pending-approvals',
      summary: 'Versions in pre-production awaiting approval',
      responses: { 200: z.array(Version.extend({ template_ref: z.string(), template_name: z.string() })) },
    },
    {
      method: 'get',
      path: '/prompts/templates/:id/audit-log',
      summary: "A template's audit trail, newest first",
      params: Id,
      query: AuditQuery,
      responses: { 200: z.array(AuditEntry).max(500) },
    },
    {
      method: 'get',
      path: '/prompts/namespaces/:id/audit-log',
      summary: "A namespace's audit trail, newest first",
      params: Id,
      query: AuditQuery,
      responses: { 200: z.array(AuditEntry).max(500) },
    },
    {
      method: 'post',
      path: '/prompts/audit/verify',
      summary: 'Recompute the HMAC chain of the prompt streams',
      query: VerifyQuery,
      responses: {
        200: z.object({
          total_entries: z.number().int(),
          verified: z.number().int(),
          tampered: z.number().int(),
          tampered_entries: z.array(
            z.object({
              event_id: z.string(),
              stream: z.string(),
              revision: z.number().int().nullable(),
              type: z.string(),
              reason: z.string(),
            }),
          ),
        }),
      },
    },
  ],
};
