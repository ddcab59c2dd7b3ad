import { newId } from '../command-handling/idempotency';
import { DEFAULT_TENANT_ID } from '../../streams/identity/tenant';
import { Request, Router } from 'express';
import { z } from 'zod';
import type { ContextModule, PlatformDeps } from '../context-module';
import { Forbidden, Unauthenticated } from '../domain/errors';
import { identityOf } from '../http/identity';
import { readUpload, UploadedFile } from '../http/multipart';
import { parseBody, parseParams, parseQuery } from '../http/validation';
import { createExtractionPool, ExtractedText, ExtractionPool, UPLOAD_LIMIT_BYTES } from '../infra/extraction';
import { CONVERSATION_ID } from '../../streams/conversations/conversation';
import { addAttachment } from '../../commands/conversations/add-attachment';
import { createConversation, CreateConversationBody } from '../../commands/conversations/create-conversation';
import { deleteConversation } from '../../commands/conversations/delete-conversation';
import { removeAttachment } from '../../commands/conversations/remove-attachment';
import { updateConversation, UpdateConversationBody } from '../../commands/conversations/update-conversation';
import { addKnowledgeFile, knowledgeCapReached } from '../../commands/conversations/add-knowledge-file';
import { createProject, CreateProjectBody } from '../../commands/conversations/create-project';
import { deleteProject } from '../../commands/conversations/delete-project';
import { removeKnowledgeFile } from '../../commands/conversations/remove-knowledge-file';
import { updateProject, UpdateProjectBody } from '../../commands/conversations/update-project';
import { conversationsProjector } from '../../projections/conversations/conversations-read-model';
import { getAttachment, listAttachments } from '../../queries/conversations/attachments';
import { listConversations, visibleConversation } from '../../queries/conversations/conversations';
import { listMessages } from '../../queries/conversations/messages';
import { getKnowledgeFile, listProjects, ownedProjectView } from '../../queries/conversations/projects';
import { MAX_KNOWLEDGE_FILES } from '../../streams/conversations/project';
import { conversationsAuditCatalog } from '../audit/catalogs/conversations';

/**
 * Conversations, attachments and projects (spec 2 §4). The same routes serve both
 * listeners: on the public one the gateway has stamped the caller; on the internal one a
 * header-less local tool may name itself with `user_id` (and `tenant_id`), while stamped
 * headers, when present, always win.
 */
type Listener = 'public' | 'internal';

interface Caller {
  tenantId: string;
  /** null: an internal tool that named no user; the owner guard then does not apply. */
  userId: string | null;
}

const Fallback = z.object({ user_id: z.string().min(1).max(128).optional(), tenant_id: z.string().min(1).max(128).optional() });

function callerOf(req: Request, listener: Listener): Caller {
  const identity = identityOf(req);
  if (identity) {
    if (!identity.permissions.includes('conversations.use')) throw new Forbidden('Missing permission: conversations.use');
    return { tenantId: identity.tenantId, userId: identity.userId };
  }
  if (listener === 'public') throw new Unauthenticated('Not authenticated');
  const query = Fallback.safeParse(req.query);
  const body = Fallback.safeParse(req.is('application/json') ? req.body : {});
  const named = { ...(query.success ? query.data : {}), ...(body.success ? body.data : {}) };
  return { tenantId: named.tenant_id ?? DEFAULT_TENANT_ID /* single-tenant local tools */, userId: named.user_id ?? null };
}

function userOf(req: Request, listener: Listener): Caller & { userId: string } {
  const caller = callerOf(req, listener);
  if (caller.userId === null) throw new Unauthenticated('Not authenticated: no identity and no user_id');
  return caller as Caller & { userId: string };
}

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  project_id: z.string().min(1).max(128).optional(),
});
const ConversationParams = z.object({ id: CONVERSATION_ID });
const AttachmentParams = z.object({ id: CONVERSATION_ID, aid: z.string().min(1).max(128) });
const ProjectParams = z.object({ id: z.string().min(1).max(128) });
const KnowledgeParams = z.object({ id: z.string().min(1).max(128), fid: z.string().min(1).max(128) });

/** Reads an upload's text off the request thread (the context's worker pool). */
type Extract = (file: UploadedFile) => Promise<ExtractedText>;

function conversationRoutes(deps: PlatformDeps, listener: Listener, extract: Extract): Router {
  const { knex } = deps;
  const router = Router();

  router.get('/conversations', async (req, res) => {
    const caller = userOf(req, listener);
    const query = parseQuery(req, ListQuery);
    res.json(await listConversations(knex, { tenantId: caller.tenantId, userId: caller.userId, projectId: query.project_id, limit: query.limit }));
  });

  router.post('/conversations', async (req, res) => {
    const caller = callerOf(req, listener);
    const body = parseBody(req, CreateConversationBody);
    const id = body.id ?? newId(caller.tenantId, 'conversations.conversation');
    await createConversation(deps, caller.tenantId, {
      type: 'CreateConversation',
      conversationId: id,
      userId: caller.userId,
      agentId: body.agent_id,
      title: body.title ?? null,
      conversationType: body.conversation_type ?? null,
      projectId: body.project_id ?? null,
      metadata: body.metadata ?? null,
    });
    res.json({ id, status: 'created' });
  });

  router.get('/conversations/:id/messages', async (req, res) => {
    const caller = callerOf(req, listener);
    const { id } = parseParams(req, ConversationParams);
    await visibleConversation(knex, caller.tenantId, id, caller.userId);
    res.json(await listMessages(knex, caller.tenantId, id));
  });

  router.patch('/conversations/:id', async (req, res) => {
    const caller = callerOf(req, listener);
    const { id } = parseParams(req, ConversationParams);
    const body = parseBody(req, UpdateConversationBody);
    await updateConversation(deps, caller.tenantId, id, { type: 'UpdateConversation', callerId: caller.userId, ...body });
    res.json(await visibleConversation(knex, caller.tenantId, id, caller.userId));
  });

  router.delete('/conversations/:id', async (req, res) => {
    const caller = callerOf(req, listener);
    const { id } = parseParams(req, ConversationParams);
    await deleteConversation(deps, caller.tenantId, id, { type: 'DeleteConversation', callerId: caller.userId });
    res.json({ id, status: 'deleted' });
  });

  router.post('/conversations/:id/attachments', async (req, res) => {
    const caller = callerOf(req, listener);
    const { id } = parseParams(req, ConversationParams);
    // Refuse before reading a byte of the upload when the conversation is not the caller's.
    await visibleConversation(knex, caller.tenantId, id, caller.userId);
    const file = await readUpload(req, res, { field: 'file', maxBytes: UPLOAD_LIMIT_BYTES });
    const extracted = await extract(file);
    const attachmentId = newId(caller.tenantId, 'conversations.attachment');
    await addAttachment(deps, caller.tenantId, id, { type: 'AddAttachment', callerId: caller.userId, attachmentId, filename: file.filename, sizeBytes: file.bytes.length, extracted });
    res.json(await getAttachment(knex, caller.tenantId, id, attachmentId));
  });

  router.get('/conversations/:id/attachments', async (req, res) => {
    const caller = callerOf(req, listener);
    const { id } = parseParams(req, ConversationParams);
    await visibleConversation(knex, caller.tenantId, id, caller.userId);
    res.json(await listAttachments(knex, caller.tenantId, id));
  });

  router.delete('/conversations/:id/attachments/:aid', async (req, res) => {
    const caller = callerOf(req, listener);
    const { id, aid } = parseParams(req, AttachmentParams);
    await removeAttachment(deps, caller.tenantId, id, { type: 'RemoveAttachment', callerId: caller.userId, attachmentId: aid });
    res.json({ id: aid, status: 'deleted' });
  });

  return router;
}

function projectRoutes(deps: PlatformDeps, listener: Listener, extract: Extract): Router {
  const { knex } = deps;
  const router = Router();

  router.get('/projects', async (req, res) => {
    const caller = userOf(req, listener);
    res.json(await listProjects(knex, caller.tenantId, caller.userId));
  });

  router.post('/projects', async (req, res) => {
    const caller = userOf(req, listener);
    const body = parseBody(req, CreateProjectBody);
    const projectId = newId(caller.tenantId, 'conversations.project');
    await createProject(deps, caller.tenantId, {
      type: 'CreateProject',
      projectId,
      userId: caller.userId,
      name: body.name,
      description: body.description ?? null,
      instructions: body.instructions ?? null,
      defaults: body.defaults ?? {},
    });
    res.status(201).json(await ownedProjectView(knex, caller.tenantId, caller.userId, projectId));
  });

  router.get('/projects/:id', async (req, res) => {
    const caller = userOf(req, listener);
    const { id } = parseParams(req, ProjectParams);
    res.json(await ownedProjectView(knex, caller.tenantId, caller.userId, id));
  });

  router.patch('/projects/:id', async (req, res) => {
    const caller = userOf(req, listener);
    const { id } = parseParams(req, ProjectParams);
    const changes = parseBody(req, UpdateProjectBody);
    await updateProject(deps, caller.tenantId, id, { type: 'UpdateProject', callerId: caller.userId, changes });
    res.json(await ownedProjectView(knex, caller.tenantId, caller.userId, id));
  });

  router.delete('/projects/:id', async (req, res) => {
    const caller = userOf(req, listener);
    const { id } = parseParams(req, ProjectParams);
    await deleteProject(deps, caller.tenantId, { type: 'DeleteProject', callerId: caller.userId, projectId: id });
    res.json({ id, status: 'deleted' });
  });

  router.post('/projects/:id/knowledge', async (req, res) => {
    const caller = userOf(req, listener);
    const { id } = parseParams(req, ProjectParams);
    // Not-found and a full project are answered before the upload is read; the decider
    // re-checks the cap on the stream, where concurrent uploads meet.
    const project = await ownedProjectView(knex, caller.tenantId, caller.userId, id);
    if (project.knowledge_file_count >= MAX_KNOWLEDGE_FILES) throw knowledgeCapReached();
    const file = await readUpload(req, res, { field: 'file', maxBytes: UPLOAD_LIMIT_BYTES });
    const extracted = await extract(file);
    const fileId = newId(caller.tenantId, 'conversations.knowledge-file');
    await addKnowledgeFile(deps, caller.tenantId, id, { type: 'AddKnowledgeFile', callerId: caller.userId, fileId, filename: file.filename, sizeBytes: file.bytes.length, extracted });
    res.json(await getKnowledgeFile(knex, caller.tenantId, id, fileId));
  });

  router.delete('/projects/:id/knowledge/:fid', async (req, res) => {
    const caller = userOf(req, listener);
    const { id, fid } = parseParams(req, KnowledgeParams);
    await removeKnowledgeFile(deps, caller.tenantId, id, { type: 'RemoveKnowledgeFile', callerId: caller.userId, fileId: fid });
    res.json({ id: fid, status: 'deleted' });
  });

  return router;
}

/**
 * The context owns its extraction pool: started with the first upload (platforms that never
 * receive one spawn no threads), shared by both listeners, closed when the platform stops.
 */
export function createConversationsContext(): ContextModule {
  let pool: ExtractionPool | null = null;
  const routes = (listener: Listener) => (deps: PlatformDeps): Router => {
    const extract: Extract = (file) => (pool ??= createExtractionPool(deps.config.extraction)).extract(file.bytes, { declared: { filename: file.filename, declaredType: file.declaredType } });
    const router = Router();
    router.use(conversationRoutes(deps, listener, extract), projectRoutes(deps, listener, extract));
    return router;
  };
  return {
    name: 'conversations',
    audit: conversationsAuditCatalog,
    projectors: [conversationsProjector],
    publicRouter: routes('public'),
    internalRouter: routes('internal'),
    async stop() {
      const closing = pool;
      pool = null;
      await closing?.close();
    },
  };
}

export const conversationsContext: ContextModule = createConversationsContext();
