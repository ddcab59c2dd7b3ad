import { randomUUID } from 'node:crypto';
import { type Request, type Response, Router } from 'express';
import { addArtifact } from '../../../commands/checklists/add-artifact';
import { startAssessment } from '../../../commands/checklists/assessment-commands';
import { CreateChecklistBody } from '../../../commands/checklists/create-checklist';
import { openChecklist } from './open-checklist';
import { rejectChecklist, RejectChecklistBody } from '../../../commands/checklists/reject-checklist';
import { retryFiling } from '../../../commands/checklists/retry-filing';
import { removeArtifact } from '../../../commands/checklists/remove-artifact';
import { requestException, RequestExceptionBody } from '../../../commands/checklists/request-exception';
import { submitChecklist, SubmitChecklistBody } from '../../../commands/checklists/submit-checklist';
import { updateChecklist, UpdateChecklistBody } from '../../../commands/checklists/update-checklist';
import { updateChecklistItem, UpdateChecklistItemBody } from '../../../commands/checklists/update-checklist-item';
import { assessmentFrame } from '../../../queries/checklists/assessment-frames';
import {
  artifactsOf,
  checklistAwaitingApproval,
  findArtifact,
  getChecklist,
  listChecklists,
  visibleChecklist,
} from '../../../queries/checklists/checklists';
import { assessmentAggregate } from '../../../streams/checklists/assessment';
import { getBlob } from '../../platform/infra/artifact-blobs';
import { runAssessment } from '../../../commands/checklists/assessment/run-assessment';
import { FILING_TEMPLATES } from '../../../streams/checklists/filing-templates';
import type { PlatformDeps } from '../../platform/context-module';
import { Conflict, DomainError, Invalid, NotFound, ValidationFailed } from '../../platform/domain-errors';
import { commandContext } from '../../platform/http/command-context';
import { newId } from '../../platform/command-handling/idempotency';
import { requireIdentity } from '../../platform/http/identity';
import { readUpload } from '../../platform/http/multipart';
import { declareRoutes } from '../../platform/http/route';
import { lastEventIdOf, openSse } from '../../platform/http/sse';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { requirePermission } from '../identity';
import { type ExtractedText, UPLOAD_LIMIT_BYTES } from '../../platform/infra/extraction';
import {
  ArtifactJsonBody,
  ArtifactParams,
  ArtifactQuery,
  ChecklistArtifactParams,
  IdParams,
  ItemParams,
  ListQuery,
  StreamQuery,
  WorkspaceParams,
} from './schemas';

/**
 * Filing checklists, their artifacts and the workspace assessment stream
 * (docs/checklists.md). Submit and exception need `filings.submit`,
 * reject needs `hitl.approve`; the rest needs an authenticated user of the tenant.
 */
export type Extract = (bytes: Buffer) => Promise<ExtractedText>;

/** GET /checklists/templates: the templates as the API shows them (static). */
const TEMPLATES = {
  templates: FILING_TEMPLATES.map((t) => ({
    template_id: t.templateId,
    form: t.form,
    title: t.title,
    domain: t.domain,
    entity_type: t.entityTypes[0],
    entity_types: t.entityTypes,
    description: t.description,
    items: t.items.map((item, index) => ({
      index,
      key: item.key,
      label: item.label,
      item_type: item.itemType,
      description: item.description,
    })),
  })),
};

export function checklistRoutes(deps: PlatformDeps, extract: Extract, runs: AssessmentRuns): Router {
  const { knex } = deps;
  const router = Router();
  const route = declareRoutes(router, deps, requirePermission);
  const checklistOf = (id: string, { context }: { context: { tenantId: string } }) =>
    visibleChecklist(knex, context.tenantId, id);
  /** The approval a submit or an exception request asked the `checklists.open-review-approval` reactor to open. */
  const awaitingApproval =
    (checkpointType: string) =>
    (opened: { approvalId: string }, { params, context }: { params: { id: string }; context: { tenantId: string } }) =>
      checklistAwaitingApproval(knex, context.tenantId, params.id, {
        approvalId: opened.approvalId,
        checkpointType,
        now: deps.clock(),
      });

  route.get('/checklists/templates', { read: () => TEMPLATES });

  route.get('/checklists', {
    query: ListQuery,
    read: ({ identity, query }) => listChecklists(knex, identity.tenantId, query),
  });

  route.post('/checklists', {
    body: CreateChecklistBody,
    status: 201,
    command: ({ body, context }) => openChecklist(deps, context, body),
    respond: checklistOf,
  });

  route.get('/checklists/:id', {
    params: IdParams,
    read: ({ identity, params }) => getChecklist(knex, identity.tenantId, params.id),
    notFound: 'Checklist not found',
  });

  route.patch('/checklists/:id', {
    params: IdParams,
    body: UpdateChecklistBody,
    command: ({ params, body, context }) => updateChecklist(deps, context, params.id, body),
    respond: (_, input) => checklistOf(input.params.id, input),
  });

  route.patch('/checklists/:id/items/:idx', {
    params: ItemParams,
    body: UpdateChecklistItemBody,
    command: ({ params, body, context }) => updateChecklistItem(deps, context, params.id, params.idx, body),
    respond: async (_, input) =>
      (await checklistOf(input.params.id, input)).items.find((i) => i.index === input.params.idx),
  });

  route.post('/checklists/:id/submit', {
    permission: 'filings.submit',
    params: IdParams,
    body: SubmitChecklistBody,
    command: ({ params, body, context }) => submitChecklist(deps, context, params.id, body),
    awaits: ['ChecklistSubmitted'],
    respond: awaitingApproval('filing_submission'),
  });

  route.post('/checklists/:id/exception', {
    permission: 'filings.submit',
    params: IdParams,
    body: RequestExceptionBody,
    command: ({ params, body, context }) => requestException(deps, context, params.id, body),
    awaits: ['ChecklistExceptionRequested'],
    respond: awaitingApproval('checklist_exception'),
  });

  route.post('/checklists/:id/reject', {
    permission: 'hitl.approve',
    params: IdParams,
    body: RejectChecklistBody,
    command: ({ params, body, context, identity }) =>
      rejectChecklist(
        deps,
        context,
        params.id,
        body,
        identity.permissions.includes('users.manage') && deps.config.approvals.adminMayDecideOwn,
      ),
    // The approval it waited on is closed by the `checklists.close-rejected-approval` reactor.
    awaits: ['ChecklistRejected'],
    respond: (_, input) => checklistOf(input.params.id, input),
  });

  // Administrators only (`users.manage`, as for deciding another reviewer's approval); the
  // decider answers 404 for no checklist and 409 unless its filing failed.
  route.post('/checklists/:id/retry-filing', {
    permission: 'users.manage',
    params: IdParams,
    command: ({ params, context }) => retryFiling(deps, context, params.id),
    // A filing recorded now is re-assessed by `compliance.reassess-after-filing`: answered after it.
    awaits: ['ChecklistFiled'],
    respond: (_outcome, { params, context }) => visibleChecklist(knex, context.tenantId, params.id),
  });

  // A custom body: a multipart upload streamed through busboy. The checklist is read first so
  // a missing item or a closed checklist is refused before the upload is read.
  router.post('/checklists/:id/items/:idx/artifacts', async (req, res) => {
    const { id, idx } = parseParams(req, ItemParams);
    const context = commandContext(req);
    const checklist = await visibleChecklist(knex, context.tenantId, id);
    // Refuse before reading the upload when the item does not exist or the checklist is closed.
    if (!checklist.items.some((i) => i.index === idx)) throw new NotFound(`Checklist item ${idx} not found`);
    if (checklist.status !== 'in_progress')
      throw new Conflict(`Cannot add an artifact: the checklist is ${checklist.status}`);
    let upload: { filename: string; bytes: Buffer; artifactType: string };
    if (req.is('application/json')) {
      const body = parseBody(req, ArtifactJsonBody);
      upload = { filename: body.filename, bytes: Buffer.from(body.content, 'utf8'), artifactType: body.artifact_type };
    } else {
      const { artifact_type } = parseQuery(req, ArtifactQuery);
      const file = await readUpload(req, res, { field: 'file', maxBytes: UPLOAD_LIMIT_BYTES });
      upload = { filename: file.filename, bytes: file.bytes, artifactType: artifact_type };
    }
    if (upload.bytes.length > UPLOAD_LIMIT_BYTES)
      throw new ValidationFailed([
        { loc: ['body', 'content'], msg: 'content exceeds the upload limit', type: 'too_long' },
      ]);
    // Same type and readability rules as conversation attachments (415 / 422).
    const extracted = await extract(upload.bytes);
    const artifactId = newId(context, 'checklists.artifact');
    await addArtifact(deps, context, id, {
      artifactId,
      itemIndex: idx,
      artifactType: upload.artifactType,
      filename: upload.filename,
      contentType: extracted.contentType,
      source: 'upload',
      bytes: upload.bytes,
    });
    res.status(201).json(await findArtifact(knex, context.tenantId, id, artifactId));
  });

  route.get('/checklists/:id/items/:idx/artifacts', {
    params: ItemParams,
    read: ({ identity, params }) => artifactsOf(knex, identity.tenantId, params.id, params.idx),
  });

  route.get('/checklists/:id/artifacts', {
    params: IdParams,
    read: ({ identity, params }) => artifactsOf(knex, identity.tenantId, params.id),
  });

  // A custom body: the artifact's bytes with their own content type, not JSON.
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

  route.delete('/checklists/:id/items/:idx/artifacts/:aid', {
    params: ArtifactParams,
    command: ({ params, context }) => removeArtifact(deps, context, params.id, params.idx, params.aid),
    respond: (_, { params }) => ({ artifact_id: params.aid, status: 'deleted' }),
  });

  // A custom body: a server-sent event stream that replays the assessment run and follows it live.
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
  const checklist = await visibleChecklist(deps.knex, tenantId, checklistId);
  const stream = assessmentAggregate.stream(tenantId, checklistId);
  const resumeFrom = lastEventIdOf(req);
  let after: bigint | null;
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
      const run = runAssessment(deps, context, checklistId, assessmentId, runs.controller.signal).finally(() =>
        runs.running.delete(run),
      );
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
