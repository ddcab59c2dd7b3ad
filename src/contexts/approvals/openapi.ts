import { z, type ApiDescription, type RouteDescription } from '../../platform/openapi/describe';
import { DecideApprovalBody } from '../../../commands/approvals/decide-approval';
import { EscalateApprovalBody } from '../../../commands/approvals/escalate-approval';
import { RequestApprovalBody } from '../../../commands/approvals/request-approval';
import { IdParams, ListQuery, TenantQuery } from './schemas';

/**
 * Human-in-the-loop approvals in the API contract. Request schemas are the router's
 * own; responses are open objects (to be tightened here).
 */
const Decision = z
  .object({
    decision: z.string(),
    reviewer_id: z.string().nullable(),
    comments: z.unknown(),
    modifications: z.unknown(),
    justification: z.string().nullable().describe('Why the reviewer approved although validations failed'),
    overridden_validations: z.array(z.string()).describe('Keys of the failed validations this approval went over'),
    decided_at: z.string(),
  })
  .passthrough();
const ApprovalSummary = z
  .object({ approval_id: z.string(), status: z.string() })
  .passthrough()
  .openapi('ApprovalSummary');
const Approval = ApprovalSummary.extend({
  checkpoint_type: z.string(),
  agent_type: z.string(),
  escalated: z.boolean(),
  escalation_level: z.number().int(),
  decision: Decision.nullable(),
})
  .passthrough()
  .openapi('Approval');
const Receipt = z.object({}).passthrough().openapi('ApprovalReceipt');

const routes = (internal: boolean): RouteDescription[] => [
  {
    method: 'post',
    path: '/approvals',
    summary: 'Request an approval',
    body: RequestApprovalBody,
    responses: { 201: Receipt },
  },
  {
    method: 'get',
    path: '/approvals',
    summary: 'Approvals, filtered and paged',
    query: ListQuery,
    responses: { 200: z.object({ approvals: z.array(ApprovalSummary).max(200), total: z.number().int() }) },
  },
  {
    method: 'post',
    path: '/approvals/escalate',
    summary: 'Escalate an approval',
    body: EscalateApprovalBody,
    responses: { 200: Approval },
  },
  {
    method: 'get',
    path: '/approvals/:id',
    summary: 'One approval with its history',
    params: IdParams,
    responses: { 200: Approval },
  },
  {
    method: 'post',
    path: '/approvals/:id/decide',
    summary: 'Approve or reject (resumes a paused turn); 403 for the one who opened the approval (four eyes)',
    description:
      'A rejection needs `comments` (its reason); approving a filing whose validations failed needs a `justification`, ' +
      'recorded with the decision. Either missing answers 422 at that field.',
    params: IdParams,
    ...(internal
      ? { query: TenantQuery, description: 'Internal listener: the tenant from `tenant_id` (else the default tenant).' }
      : {}),
    body: DecideApprovalBody,
    responses: { 200: Approval },
  },
];

// A payload and its modifications are free-form objects of at most 256 KB each (bounded.ts).
export const approvalsApi: ApiDescription = {
  tag: 'approvals',
  bodyLimit: 1024 * 1024,
  public: () => routes(false),
  internal: () => routes(true),
};
