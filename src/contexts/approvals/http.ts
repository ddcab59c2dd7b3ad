import { Router } from 'express';
import { decideApproval, DecideApprovalBody } from '../../../commands/approvals/decide-approval';
import { escalateApproval, EscalateApprovalBody } from '../../../commands/approvals/escalate-approval';
import { requestApproval, RequestApprovalBody } from '../../../commands/approvals/request-approval';
import { findApproval, listApprovals } from '../../../queries/approvals/approval-queue';
import { ApprovalState } from '../../../streams/approvals/approval';
import { DEFAULT_TENANT_ID } from '../../../streams/identity/tenant';
import type { CommandContext } from '../../platform/command-handling/command-handler';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound, Unauthenticated } from '../../platform/domain-errors';
import { commandContext, idempotencyKeyOf } from '../../platform/http/command-context';
import { identityOf, requireIdentity } from '../../platform/http/identity';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity/require-permission';
import { IdParams, ListQuery, TenantQuery } from './schemas';

/**
 * Human-in-the-loop approvals (spec 2 §4 Approvals). Decide and escalate need
 * `hitl.approve` (the gateway's reviewer/admin gate is in front of decide on the public
 * listener). The internal listener serves decide for header-less local callers, who name the
 * reviewer with `reviewer_id` (and the tenant with `?tenant_id=`); a stamped identity always wins.
 */
type Listener = 'public' | 'internal';


/** Only admins hold `users.manage` (DESIGN §9): they may decide an approval named to someone else. */
const ADMIN_MARK = 'users.manage';

async function details(deps: PlatformDeps, tenantId: string, approvalId: string) {
  const approval = await findApproval(deps.knex, tenantId, approvalId);
  if (!approval) throw new NotFound('Approval not found');
  return approval;
}

/**
 * The answer to a write: the read model's row with what the command just decided laid
 * over it, so a projection that has not caught up within the bounded wait (a loaded
 * machine) never turns a successful decision into a 404 or a stale status.
 */
async function afterWrite(deps: PlatformDeps, tenantId: string, state: ApprovalState) {
  if (state.status === 'none') throw new NotFound('Approval not found');
  const row = await findApproval(deps.knex, tenantId, state.approvalId);
  const escalated = state.escalationLevel > 0;
  const decision =
    state.status === 'pending'
      ? null
      : {
          decision: state.decision.decision,
          reviewer_id: state.decision.reviewerId,
          comments: state.decision.comments,
          modifications: state.decision.modifications,
          justification: state.decision.justification ?? null,
          overridden_validations: state.decision.overriddenValidations ?? [],
          decided_at: state.decision.decidedAt,
        };
  return {
    ...row,
    approval_id: state.approvalId,
    status: state.status,
    checkpoint_type: state.checkpointType,
    agent_type: state.agentType,
    created_at: state.requestedAt,
    reviewer_id: state.reviewerId,
    escalated,
    escalation_level: state.escalationLevel,
    conversation_id: state.conversationId,
    requested_by: state.requestedBy,
    escalation: escalated ? (row?.escalation ?? null) : null,
    decision,
  };
}

export function routes(deps: PlatformDeps, listener: Listener): Router {
  const router = Router();

  router.post('/approvals', async (req, res) => {
    requirePermission(req, 'conversations.use', deps);
    const body = parseBody(req, RequestApprovalBody);
    const receipt = await requestApproval(deps, commandContext(req), {
      conversationId: body.conversation_id ?? null,
      agentType: body.agent_type,
      checkpointType: body.checkpoint_type,
      payload: body.payload,
      reviewerStrategy: body.reviewer_strategy,
      reviewerId: body.reviewer_id ?? null,
    });
    res.status(201).json(receipt);
  });

  router.get('/approvals', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    res.json(await listApprovals(deps.knex, tenantId, parseQuery(req, ListQuery)));
  });

  router.post('/approvals/escalate', async (req, res) => {
    requirePermission(req, 'hitl.approve', deps);
    const body = parseBody(req, EscalateApprovalBody);
    const context = commandContext(req);
    const state = await escalateApproval(deps, context, body.approval_id, { type: 'EscalateApproval', reason: body.reason, escalatedBy: context.actorId });
    res.json(await afterWrite(deps, context.tenantId, state));
  });

  router.get('/approvals/:id', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, IdParams);
    res.json(await details(deps, tenantId, id));
  });

  router.post('/approvals/:id/decide', async (req, res) => {
    const { id } = parseParams(req, IdParams);
    const body = parseBody(req, DecideApprovalBody);
    let context: CommandContext;
    let reviewerIsAdmin = false;
    if (identityOf(req) || listener === 'public') {
      requirePermission(req, 'hitl.approve', deps);
      context = commandContext(req);
      reviewerIsAdmin = requireIdentity(req).permissions.includes(ADMIN_MARK);
    } else {
      if (!body.reviewer_id) throw new Unauthenticated('Not authenticated: no identity and no reviewer_id');
      const tenantId = parseQuery(req, TenantQuery).tenant_id ?? DEFAULT_TENANT_ID;
      context = { tenantId, actorId: body.reviewer_id, correlationId: req.id, idempotencyKey: idempotencyKeyOf(req) };
    }
    const { state, position } = await decideApproval(deps, context, id, {
      type: 'DecideApproval',
      decision: body.decision,
      reviewerId: context.actorId,
      reviewerIsAdmin,
      mayDecideOwn: reviewerIsAdmin && deps.config.approvals.adminMayDecideOwn,
      comments: body.comments ?? null,
      modifications: body.modifications ?? null,
      justification: body.justification ?? null,
    });
    // What follows a decision (the checklist's review, the paused conversation) is done by
    // reactors; the answer waits for them, bounded, so a GET right after shows it. It waits
    // for the decision's own position: the visible head can still be short of it while an
    // older transaction is open. A replayed decision waits for the position it was first written at.
    if (position) await deps.reactors.waitFor(position, deps.config.projectionWaitMs, ['ApprovalDecided']);
    res.json(await afterWrite(deps, context.tenantId, state));
  });

  return router;
}
