import { newId } from '../../platform/command-handling/idempotency';
import { DEFAULT_TENANT_ID } from '../../../streams/identity/tenant';
import { type Request, Router } from 'express';
import { z } from 'zod';
import type { PlatformDeps } from '../../platform/context-module';
import { Forbidden, Unauthenticated } from '../../platform/domain-errors';
import { identityOf } from '../../platform/http/identity';
import { readUpload, type UploadedFile } from '../../platform/http/multipart';
import { declareRoutes } from '../../platform/http/route';
import { parseParams } from '../../platform/http/validation';
import { type ExtractedText, UPLOAD_LIMIT_BYTES } from '../../platform/infra/extraction';
import { addAttachment } from '../../../commands/conversations/add-attachment';
import { createConversation, CreateConversationBody } from '../../../commands/conversations/create-conversation';
import { deleteConversation } from '../../../commands/conversations/delete-conversation';
import { removeAttachment } from '../../../commands/conversations/remove-attachment';
import { updateConversation, UpdateConversationBody } from '../../../commands/conversations/update-conversation';
import { addKnowledgeFile, knowledgeCapReached } from '../../../commands/conversations/add-knowledge-file';
import { createProject, CreateProjectBody } from '../../../commands/conversations/create-project';
import { deleteProject } from '../../../commands/conversations/delete-project';
import { removeKnowledgeFile } from '../../../commands/conversations/remove-knowledge-file';
import { updateProject, UpdateProjectBody } from '../../../commands/conversations/update-project';
import { getAttachment, listAttachments } from '../../../queries/conversations/attachments';
import { listConversations, visibleConversation } from '../../../queries/conversations/conversations';
import { listMessages } from '../../../queries/conversations/messages';
import { getKnowledgeFile, listProjects, ownedProjectView } from '../../../queries/conversations/projects';
import { MAX_KNOWLEDGE_FILES } from '../../../streams/conversations/project';
import { requirePermission } from '../identity';
import { AttachmentParams, ConversationParams, KnowledgeParams, ListQuery, ProjectParams } from './schemas';

/**
 * Conversations, attachments and projects. The same routes serve both
 * listeners: on the public one the gateway has stamped the caller; on the internal one a
 * header-less local tool may name itself with `user_id` (and `tenant_id`), while stamped
 * headers, when present, always win.
 */
export type Listener = 'public' | 'internal';

interface Caller {
  tenantId: string;
  /** null: an internal tool that named no user; the owner guard then does not apply. */
  userId: string | null;
}

const Fallback = z.object({
  user_id: z.string().min(1).max(128).optional(),
  tenant_id: z.string().min(1).max(128).optional(),
});

function callerOf(req: Request, listener: Listener): Caller {
  const identity = identityOf(req);
  if (identity) {
    if (!identity.permissions.includes('conversations.use'))
      throw new Forbidden('Missing permission: conversations.use');
    return { tenantId: identity.tenantId, userId: identity.userId };
  }
  if (listener === 'public') throw new Unauthenticated('Not authenticated');
  const query = Fallback.safeParse(req.query);
  const body = Fallback.safeParse(req.is('application/json') ? req.body : {});
  const named = { ...(query.success ? query.data : {}), ...(body.success ? body.data : {}) };
  return {
    tenantId: named.tenant_id ?? DEFAULT_TENANT_ID /* single-tenant local tools */,
    userId: named.user_id ?? null,
  };
}

function userOf(req: Request, listener: Listener): Caller & { userId: string } {
  const caller = callerOf(req, listener);
  if (caller.userId === null) throw new Unauthenticated('Not authenticated: no identity and no user_id');
  return caller as Caller & { userId: string };
}

/** Reads an upload's text off the request thread (the context's worker pool). */
export type Extract = (file: UploadedFile) => Promise<ExtractedText>;

/**
 * The routes' callers: `caller` may be an internal tool that named no user, `user` must name
 * one. The check of `conversations.use` is the caller's (see callerOf), not a declared permission.
 */
function declare(deps: PlatformDeps, router: Router, listener: Listener) {
  return {
    caller: declareRoutes(router, deps, requirePermission, { caller: (req) => callerOf(req, listener) }),
    user: declareRoutes(router, deps, requirePermission, { caller: (req) => userOf(req, listener) }),
  };
}

export function conversationRoutes(deps: PlatformDeps, listener: Listener, extract: Extract): Router {
  const { knex } = deps;
  const router = Router();
  const route = declare(deps, router, listener);

  route.user.get('/conversations', {
    query: ListQuery,
    read: ({ caller, query }) =>
      listConversations(knex, {
        tenantId: caller.tenantId,
        userId: caller.userId,
        projectId: query.project_id,
        limit: query.limit,
      }),
  });

  route.caller.post('/conversations', {
    body: CreateConversationBody,
    command: async ({ caller, body }) => {
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
      return id;
    },
    respond: (id) => ({ id, status: 'created' }),
  });

  route.caller.get('/conversations/:id/messages', {
    params: ConversationParams,
    read: async ({ caller, params }) => {
      await visibleConversation(knex, caller.tenantId, params.id, caller.userId);
      return listMessages(knex, caller.tenantId, params.id);
    },
  });

  route.caller.patch('/conversations/:id', {
    params: ConversationParams,
    body: UpdateConversationBody,
    command: ({ caller, params, body }) =>
      updateConversation(deps, caller.tenantId, params.id, {
        type: 'UpdateConversation',
        callerId: caller.userId,
        ...body,
      }),
    respond: (_, { caller, params }) => visibleConversation(knex, caller.tenantId, params.id, caller.userId),
  });

  route.caller.delete('/conversations/:id', {
    params: ConversationParams,
    command: ({ caller, params }) =>
      deleteConversation(deps, caller.tenantId, params.id, { type: 'DeleteConversation', callerId: caller.userId }),
    respond: (_, { params }) => ({ id: params.id, status: 'deleted' }),
  });

  // A custom body: a multipart upload streamed through busboy, refused before a byte of it is
  // read when the conversation is not the caller's.
  router.post('/conversations/:id/attachments', async (req, res) => {
    const caller = callerOf(req, listener);
    const { id } = parseParams(req, ConversationParams);
    await visibleConversation(knex, caller.tenantId, id, caller.userId);
    const file = await readUpload(req, res, { field: 'file', maxBytes: UPLOAD_LIMIT_BYTES });
    const extracted = await extract(file);
    const attachmentId = newId(caller.tenantId, 'conversations.attachment');
    await addAttachment(deps, caller.tenantId, id, {
      type: 'AddAttachment',
      callerId: caller.userId,
      attachmentId,
      filename: file.filename,
      sizeBytes: file.bytes.length,
      extracted,
    });
    res.json(await getAttachment(knex, caller.tenantId, id, attachmentId));
  });

  route.caller.get('/conversations/:id/attachments', {
    params: ConversationParams,
    read: async ({ caller, params }) => {
      await visibleConversation(knex, caller.tenantId, params.id, caller.userId);
      return listAttachments(knex, caller.tenantId, params.id);
    },
  });

  route.caller.delete('/conversations/:id/attachments/:aid', {
    params: AttachmentParams,
    command: ({ caller, params }) =>
      removeAttachment(deps, caller.tenantId, params.id, {
        type: 'RemoveAttachment',
        callerId: caller.userId,
        attachmentId: params.aid,
      }),
    respond: (_, { params }) => ({ id: params.aid, status: 'deleted' }),
  });

  return router;
}

export function projectRoutes(deps: PlatformDeps, listener: Listener, extract: Extract): Router {
  const { knex } = deps;
  const router = Router();
  const { user: route } = declare(deps, router, listener);

  route.get('/projects', {
    read: ({ caller }) => listProjects(knex, caller.tenantId, caller.userId),
  });

  route.post('/projects', {
    body: CreateProjectBody,
    status: 201,
    command: async ({ caller, body }) => {
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
      return projectId;
    },
    respond: (projectId, { caller }) => ownedProjectView(knex, caller.tenantId, caller.userId, projectId),
  });

  route.get('/projects/:id', {
    params: ProjectParams,
    read: ({ caller, params }) => ownedProjectView(knex, caller.tenantId, caller.userId, params.id),
  });

  route.patch('/projects/:id', {
    params: ProjectParams,
    body: UpdateProjectBody,
    command: ({ caller, params, body }) =>
      updateProject(deps, caller.tenantId, params.id, {
        type: 'UpdateProject',
        callerId: caller.userId,
        changes: body,
      }),
    respond: (_, { caller, params }) => ownedProjectView(knex, caller.tenantId, caller.userId, params.id),
  });

  route.delete('/projects/:id', {
    params: ProjectParams,
    command: ({ caller, params }) =>
      deleteProject(deps, caller.tenantId, { type: 'DeleteProject', callerId: caller.userId, projectId: params.id }),
    respond: (_, { params }) => ({ id: params.id, status: 'deleted' }),
  });

  // A custom body: a multipart upload streamed through busboy. Not-found and a full project are
  // answered before the upload is read; the decider re-checks the cap on the stream, where
  // concurrent uploads meet.
  router.post('/projects/:id/knowledge', async (req, res) => {
    const caller = userOf(req, listener);
    const { id } = parseParams(req, ProjectParams);
    const project = await ownedProjectView(knex, caller.tenantId, caller.userId, id);
    if (project.knowledge_file_count >= MAX_KNOWLEDGE_FILES) throw knowledgeCapReached();
    const file = await readUpload(req, res, { field: 'file', maxBytes: UPLOAD_LIMIT_BYTES });
    const extracted = await extract(file);
    const fileId = newId(caller.tenantId, 'conversations.knowledge-file');
    await addKnowledgeFile(deps, caller.tenantId, id, {
      type: 'AddKnowledgeFile',
      callerId: caller.userId,
      fileId,
      filename: file.filename,
      sizeBytes: file.bytes.length,
      extracted,
    });
    res.json(await getKnowledgeFile(knex, caller.tenantId, id, fileId));
  });

  route.delete('/projects/:id/knowledge/:fid', {
    params: KnowledgeParams,
    command: ({ caller, params }) =>
      removeKnowledgeFile(deps, caller.tenantId, params.id, {
        type: 'RemoveKnowledgeFile',
        callerId: caller.userId,
        fileId: params.fid,
      }),
    respond: (_, { params }) => ({ id: params.fid, status: 'deleted' }),
  });

  return router;
}
