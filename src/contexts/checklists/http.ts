import { randomUUID } from 'node:crypto';
import { Request, Response, Router } from 'express';
import { addArtifact } from '../../../commands/checklists/add-artifact';
import { startAssessment } from '../../../commands/checklists/assessment-commands';
import { CreateChecklistBody } from '../../../commands/checklists/create-checklist';
import { openChecklist } from './open-checklist';
import { rejectChecklist, RejectChecklistBody } from '../../../commands/checklists/reject-checklist';
import { retryFiling } from '../../../commands/checklists/record-filing';
import { removeArtifact } from '../../../commands/checklists/remove-artifact';
import { requestException, RequestExceptionBody } from '../../../commands/checklists/request-exception';
import { submitChecklist, SubmitChecklistBody } from '../../../commands/checklists/submit-checklist';
import { updateChecklist, UpdateChecklistBody } from '../../../commands/checklists/update-checklist';
import { updateChecklistItem, UpdateChecklistItemBody } from '../../../commands/checklists/update-checklist-item';
import { findApproval } from '../../../queries/approvals/approval-queue';
import type { Position } from '../../platform/eventstore/types';
import { assessmentFrame } from '../../../queries/checklists/assessment-frames';
import { findArtifact, getChecklist, listArtifacts, listChecklists } from '../../../queries/checklists/checklists';
import { assessmentAggregate } from '../../../streams/checklists/assessment';
import { getBlob } from '../../platform/infra/artifact-blobs';
import { runAssessment } from './assessment/run-assessment';
import { FILING_TEMPLATES } from './filing-templates';
import type { PlatformDeps } from '../../platform/context-module';
import { Conflict, DomainError, Forbidden, Invalid, NotFound, ValidationFailed } from '../../platform/domain-errors';
import { commandContext } from '../../platform/http/command-context';
import { newId } from '../../platform/command-handling/idempotency';
import { requireIdentity } from '../../platform/http/identity';
import { readUpload } from '../../platform/http/multipart';
import { lastEventIdOf, openSse } from '../../platform/http/sse';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity/require-permission';
import { ExtractedText, UPLOAD_LIMIT_BYTES } from '../../platform/infra/extraction';
import { ArtifactJsonBody, ArtifactParams, ArtifactQuery, ChecklistArtifactParams, IdParams, ItemParams, ListQuery, StreamQuery, WorkspaceParams } from './schemas';

/**
 * Filing checklists, their artifacts and the workspace assessment stream
 * (docs/checklists.md). Submit and exception need `filings.submit`,
 * reject needs `hitl.approve`; the rest needs an authenticated user of the tenant.
 */
export type Extract = (bytes: Buffer) => Promise<ExtractedText>;


async function visibleChecklist(deps: PlatformDeps, tenantId: string, checklistId: string) {
  const checklist = await getChecklist(deps.knex, tenantId, checklistId);
  if (!checklist) throw new NotFound('Checklist not found');
  return checklist;
}

export function checklistRoutes(deps: PlatformDeps, extract: Extract, runs: AssessmentRuns): Router {
  const { knex } = deps;
  const router = Router();

  router.get('/checklists/templates', (req, res) => {
    requireIdentity(req);
    res.json({
      templates: FILING_TEMPLATES.map((t) => ({
        template_id: t.templateId,
        form: t.form,
        title: t.title,
        domain: t.domain,
        entity_type: t.entityTypes[0],
        entity_types: t.entityTypes,
        description: t.description,
        items: t.items.map((item, index) => ({ index, key: item.key, label: item.label, item_type: item.itemType, description: item.description })),
      })),
    });
  });

  router.get('/checklists', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    res.json(await listChecklists(knex, tenantId, parseQuery(req, ListQuery)));
  });

  router.post('/checklists', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const id = await openChecklist(deps, commandContext(req), parseBody(req, CreateChecklistBody));
    res.status(201).json(await visibleChecklist(deps, tenantId, id));
  });

  router.get('/checklists/:id', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    res.json(await visibleChecklist(deps, tenantId, parseParams(req, IdParams).id));
  });

  router.patch('/checklists/:id', async (req, res) => {
    const { id } = parseParams(req, IdParams);
    const body = parseBody(req, UpdateChecklistBody);
    const context = commandContext(req);
    await visibleChecklist(deps, context.tenantId, id);
    await updateChecklist(deps, context, id, body);
    res.json(await visibleChecklist(deps, context.tenantId, id));
  });

  router.patch('/checklists/:id/items/:idx', async (req, res) => {
    const { id, idx } = parseParams(req, ItemParams);
    const body = parseBody(req, UpdateChecklistItemBody);
    const context = commandContext(req);
    await visibleChecklist(deps, context.tenantId, id);
    await updateChecklistItem(deps, context, id, idx, body);
    const checklist = await visibleChecklist(deps, context.tenantId, id);
    res.json(checklist.items.find((i) => i.index === idx));
  });

  /**
   * The answer to a submit or an exception request: the checklist and the approval it waits
   * on. The approval is opened by a reactor; the route waits (bounded) for it so the answer
   * usually shows it, and otherwise answers with what the approval will be.
   */
  async function withApproval(tenantId: string, id: string, opened: { approvalId: string; position: Position | null }, eventType: string, checkpointType: string) {
    if (opened.position) await deps.reactors.waitFor(opened.position, deps.config.projectionWaitMs, [eventType]);
    const row = await findApproval(deps.knex, tenantId, opened.approvalId);
    const approval = row
      ? { approval_id: row.approval_id, status: row.status, checkpoint_type: row.checkpoint_type, created_at: row.created_at, reviewer_id: row.reviewer_id }
      : { approval_id: opened.approvalId, status: 'pending', checkpoint_type: checkpointType, created_at: deps.clock().toISOString(), reviewer_id: null };
    return { ...(await visibleChecklist(deps, tenantId, id)), approval };
  }

  router.post('/checklists/:id/submit', async (req, res) => {
    requirePermission(req, 'filings.submit', deps);
    const { id } = parseParams(req, IdParams);
    const body = parseBody(req, SubmitChecklistBody);
    const context = commandContext(req);
    await visibleChecklist(deps, context.tenantId, id);
    const submitted = await submitChecklist(deps, context, id, body);
    res.json(await withApproval(context.tenantId, id, submitted, 'ChecklistSubmitted', 'filing_submission'));
  });

  router.post('/checklists/:id/exception', async (req, res) => {
    requirePermission(req, 'filings.submit', deps);
    const { id } = parseParams(req, IdParams);
    const body = parseBody(req, RequestExceptionBody);
    const context = commandContext(req);
    await visibleChecklist(deps, context.tenantId, id);
    const requested = await requestException(deps, context, id, body);
    res.json(await withApproval(context.tenantId, id, requested, 'ChecklistExceptionRequested', 'checklist_exception'));
  });

  router.post('/checklists/:id/reject', async (req, res) => {
    requirePermission(req, 'hitl.approve', deps);
    const { id } = parseParams(req, IdParams);
    const body = parseBody(req, RejectChecklistBody);
    const context = commandContext(req);
    await visibleChecklist(deps, context.tenantId, id);
    const isAdmin = requireIdentity(req).permissions.includes('users.manage');
    // The approval it waited on is closed by the `checklists.close-rejected-approval` reactor.
    const { position } = await rejectChecklist(deps, context, id, body, isAdmin && deps.config.approvals.adminMayDecideOwn);
    if (position) await deps.reactors.waitFor(position, deps.config.projectionWaitMs, ['ChecklistRejected']);
    res.json(await visibleChecklist(deps, context.tenantId, id));
  });

  // Administrators only (`users.manage`, as for deciding another reviewer's approval).
  router.post('/checklists/:id/retry-filing', async (req, res) => {
    requirePermission(req, 'users.manage', deps);
    const { id } = parseParams(req, IdParams);
    const context = commandContext(req);
    await visibleChecklist(deps, context.tenantId, id);
    await retryFiling(deps, context, id);
    res.json(await visibleChecklist(deps, context.tenantId, id));
  });

  router.post('/checklists/:id/items/:idx/artifacts', async (req, res) => {
    const { id, idx } = parseParams(req, ItemParams);
    const context = commandContext(req);
    const checklist = await visibleChecklist(deps, context.tenantId, id);
    // Refuse before reading the upload when the item does not exist or the checklist is closed.
    if (!checklist.items.some((i) => i.index === idx)) throw new NotFound(`Checklist item ${idx} not found`);
    if (checklist.status !== 'in_progress') throw new Conflict(`Cannot add an artifact: the checklist is ${checklist.status}`);
    let upload: { filename: string; bytes: Buffer; artifactType: string };
    if (req.is('application/json')) {
      const body = parseBody(req, ArtifactJsonBody);
      upload = { filename: body.filename, bytes: Buffer.from(body.content, 'utf8'), artifactType: body.artifact_type };
    } else {
      const { artifact_type } = parseQuery(req, ArtifactQuery);
      const file = await readUpload(req, res, { field: 'file', maxBytes: UPLOAD_LIMIT_BYTES });
      upload = { filename: file.filename, bytes: file.bytes, artifactType: artifact_type };
    }
    if (upload.bytes.length > UPLOAD_LIMIT_BYTES) throw new ValidationFailed([{ loc: ['body', 'content'], msg: 'content exceeds the upload limit', type: 'too_long' }]);
    // Same type and readability rules as conversation attachments (415 / 422).
    const extracted = await extract(upload.bytes);
    const artifactId = newId(context, 'checklists.artifact');
    await addArtifact(deps, context, id, { artifactId, itemIndex: idx, artifactType: upload.artifactType, filename: upload.filename, contentType: extracted.contentType, source: 'upload', bytes: upload.bytes });
    res.status(201).json(await findArtifact(knex, context.tenantId, id, artifactId));
  });

  router.get('/checklists/:id/items/:idx/artifacts', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id, idx } = parseParams(req, ItemParams);
    const checklist = await visibleChecklist(deps, tenantId, id);
    if (!checklist.items.some((i) => i.index === idx)) throw new NotFound(`Checklist item ${idx} not found`);
    const artifacts = await listArtifacts(knex, tenantId, id, idx);
    res.json({ artifacts, total: artifacts.length });
  });

  router.get('/checklists/:id/artifacts', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id } = parseParams(req, IdParams);
    await visibleChecklist(deps, tenantId, id);
    const artifacts = await listArtifacts(knex, tenantId, id);
    res.json({ artifacts, total: artifacts.length });
  });

  router.get('/checklists/:id/artifacts/:aid/content', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    const { id, aid } = parseParams(req, ChecklistArtifactParams);
    const artifact = await findArtifact(knex, tenantId, id, aid);
    if (!artifact) throw new NotFound('Artifact not found');
    const blob = await getBlob(knex, tenantId, artifact.sha256);
    if (!blob) throw new NotFound('Artifact content not found');
    res.setHeader('Content-Type', artifact.content_type);
    res.setHeader('Content-Disposition', `attachment; filename="${artifact.filename.replace(/["\\\r\n]/g, '_')}"`);
    res.send(blob.content);
  });

  router.delete('/checklists/:id/items/:idx/artifacts/:aid', async (req, res) => {
    const { id, idx, aid } = parseParams(req, ArtifactParams);
    const context = commandContext(req);
    await visibleChecklist(deps, context.tenantId, id);
    await removeArtifact(deps, context, id, idx, aid);
    res.json({ artifact_id: aid, status: 'deleted' });
  });

  router.get('/workspaces/:checklist_id/stream', (req, res) => workspaceStream(deps, runs, req, res));

  return router;
}

/** Assessment runs of this process, so a stopping platform waits for them to record their end. */
export interface AssessmentRuns {
  controller: AbortController;
  running: Set<Promise<void>>;
}

/**
 * GET /workspaces/{checklist_id}/stream: replays the latest assessment run from its start
 * (or everything after `Last-Event-ID`), then follows live. A reader that finds no run (or
 * asks `?rerun=true` after a finished one) starts one; concurrent readers share the run the
 * stream decided first. The response ends after the `assessment_complete` frame.
 */
async function workspaceStream(deps: PlatformDeps, runs: AssessmentRuns, req: Request, res: Response): Promise<void> {
  const { tenantId } = requireIdentity(req);
  const { checklist_id: checklistId } = parseParams(req, WorkspaceParams);
  const query = parseQuery(req, StreamQuery);
  const checklist = await visibleChecklist(deps, tenantId, checklistId);
  const stream = assessmentAggregate.stream(tenantId, checklistId);
  const resumeFrom = lastEventIdOf(req);
  let after: bigint | null = null;
  if (resumeFrom !== undefined) {
    if (!/^\d{1,18}$/.test(resumeFrom)) throw new Invalid('Last-Event-ID must be an event id this stream sent');
    after = BigInt(resumeFrom);
  } else {
    const context = { ...commandContext(req), idempotencyKey: undefined };
    const assessmentId = randomUUID();
    const started = await startAssessment(deps, context, {
      type: 'StartAssessment',
      assessmentId,
      checklistId,
      templateId: checklist.template_id,
      entityId: checklist.entity_id,
      startedBy: context.actorId,
      rerun: query.rerun === 'true',
    });
    if (started) {
      const run = runAssessment(deps, context, checklistId, assessmentId, runs.controller.signal).finally(() => runs.running.delete(run));
      runs.running.add(run);
    }
    const recent = await deps.store.readStream(stream, { direction: 'backwards' });
    const start = recent.find((e) => e.type === 'AssessmentStarted');
    after = start && start.revision > 0n ? start.revision - 1n : null;
  }
  const sse = openSse(req, res);
  try {
    for await (const event of deps.streamTail.follow(stream, after, sse.closed)) {
      const frame = assessmentFrame(event);
      sse.send({ id: event.revision.toString(), event: frame.eventType, data: frame.data });
      if (event.type === 'AssessmentCompleted') break;
    }
  } catch (error) {
    if (!(error instanceof DomainError)) deps.logger.warn({ err: error, stream }, 'workspace stream failed');
  } finally {
    sse.end();
  }
}
