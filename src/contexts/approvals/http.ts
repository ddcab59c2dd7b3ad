import type { NextFunction, Request, Response } from 'express';
import { Router } from 'express';
import { decideApproval, DecideApprovalBody } from '../../../commands/approvals/decide-approval';
import { escalateApproval, EscalateApprovalBody } from '../../../commands/approvals/escalate-approval';
import { requestApproval, RequestApprovalBody } from '../../../commands/approvals/request-approval';
import {
  approvalAsWritten,
  approvalOrExpected,
  findApproval,
  listApprovals,
} from '../../../queries/approvals/approval-queue';
import { DEFAULT_TENANT_ID } from '../../../streams/identity/tenant';
import type { PlatformDeps } from '../../platform/context-module';
import { Unauthenticated } from '../../platform/domain-errors';
import { identityOf, stampIdentity } from '../../platform/http/identity';
import { declareRoutes } from '../../platform/http/route';
import { parse, parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity';
import { IdParams, ListQuery, TenantQuery } from './schemas';

/**
 * Human-in-the-loop approvals. Decide and escalate need
 * `hitl.approve` (the gateway's reviewer/admin gate is in front of decide on the public
 * listener). The internal listener serves decide for header-less local callers, who name the
 * reviewer with `reviewer_id` (and the tenant with `?tenant_id=`); a stamped identity always wins.
 */
type Listener = 'public' | 'internal';

/** Only admins hold `users.manage`: they may decide an approval named to someone else. */
const ADMIN_MARK = 'users.manage';
const DECIDE = 'hitl.approve';

/**
 * A header-less local caller on the internal listener asserts the reviewer in the body
 * instead of the identity headers: it is read as those headers would be, then decided like
 * any other reviewer's decision (never as an admin).
 */
function headerlessReviewer(req: Request, _res: Response, next: NextFunction): void {
  if (identityOf(req)) return next();
  const { reviewer_id } = parse(DecideApprovalBody, req.body ?? {}, 'body');
  if (!reviewer_id) throw new Unauthenticated('Not authenticated: no identity and no reviewer_id');
  const tenantId = parseQuery(req, TenantQuery).tenant_id ?? DEFAULT_TENANT_ID;
  stampIdentity(req, { userId: reviewer_id, tenantId, permissions: [DECIDE] });
  next();
}

export function routes(deps: PlatformDeps, listener: Listener): Router {
  const router = Router();
  const route = declareRoutes(router, deps, requirePermission);

  route.post('/approvals', {
    permission: 'conversations.use',
    body: RequestApprovalBody,
    status: 201,
    command: ({ body, context }) =>
      requestApproval(deps, context, {
        conversationId: body.conversation_id ?? null,
        agentType: body.agent_type,
        checkpointType: body.checkpoint_type,
        payload: body.payload,
        reviewerStrategy: body.reviewer_strategy,
        reviewerId: body.reviewer_id ?? null,
      }),
    respond: (receipt, { context }) => approvalOrExpected(deps.knex, context.tenantId, receipt),
  });

  route.get('/approvals', {
    query: ListQuery,
    read: ({ identity, query }) => listApprovals(deps.knex, identity.tenantId, query),
  });

  route.post('/approvals/escalate', {
    permission: DECIDE,
    body: EscalateApprovalBody,
    command: ({ body, context }) =>
      escalateApproval(deps, context, body.approval_id, {
        type: 'EscalateApproval',
        reason: body.reason,
        escalatedBy: context.actorId,
      }),
    respond: (state, { context }) => approvalAsWritten(deps.knex, context.tenantId, state),
  });

  route.get('/approvals/:id', {
    params: IdParams,
    read: ({ identity, params }) => findApproval(deps.knex, identity.tenantId, params.id),
    notFound: 'Approval not found',
  });

  // Not a handler: in front of the declared decision, it stamps the reviewer a header-less local caller names.
  if (listener === 'internal') router.post('/approvals/:id/decide', headerlessReviewer);
  route.post('/approvals/:id/decide', {
    permission: DECIDE,
    params: IdParams,
    body: DecideApprovalBody,
    command: ({ params, body, context, identity }) => {
      const reviewerIsAdmin = identity.permissions.includes(ADMIN_MARK);
      return decideApproval(deps, context, params.id, {
        type: 'DecideApproval',
        decision: body.decision,
        reviewerId: context.actorId,
        reviewerIsAdmin,
        mayDecideOwn: reviewerIsAdmin && deps.config.approvals.adminMayDecideOwn,
        comments: body.comments ?? null,
        modifications: body.modifications ?? null,
        justification: body.justification ?? null,
      });
    },
    // What follows a decision (the checklist's review, the paused conversation) is done by
    // reactors; the answer shows it. A replayed decision waits for the position it was first written at.
    awaits: ['ApprovalDecided'],
    respond: ({ state }, { context }) => approvalAsWritten(deps.knex, context.tenantId, state),
  });

  return router;
}
