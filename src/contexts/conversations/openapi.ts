import { z, type ApiDescription, type RouteDescription } from '../../platform/openapi/describe';
import { CreateConversationBody } from '../../../commands/conversations/create-conversation';
import { CreateProjectBody } from '../../../commands/conversations/create-project';
import { UpdateConversationBody } from '../../../commands/conversations/update-conversation';
import { UpdateProjectBody } from '../../../commands/conversations/update-project';
import { AttachmentParams, ConversationParams, KnowledgeParams, ListQuery, ProjectParams } from './schemas';

/** Conversations, attachments and projects in the API contract; schemas are the router's own. */
const Conversation = z
  .object({
    id: z.string(),
    agent_id: z.string(),
    user_id: z.string().nullable(),
    status: z.string(),
    title: z.string(),
    preview: z.string().nullable(),
    conversation_type: z.string().nullable(),
    project_id: z.string().nullable(),
    metadata: z.record(z.unknown()).nullable(),
    message_count: z.number().int(),
    last_message_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
  })
  .openapi('Conversation');
const Message = z
  .object({
    id: z.string(),
    conversation_id: z.string(),
    sequence_number: z.number().int(),
    role: z.string(),
    content: z.string(),
    user_id: z.string().nullable(),
    tool_name: z.string().nullable(),
    metadata: z.record(z.unknown()).nullable(),
    created_at: z.string(),
  })
  .openapi('Message');
const Attachment = z
  .object({
    id: z.string(),
    filename: z.string(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    token_estimate: z.number().int(),
    truncated: z.boolean(),
    created_at: z.string(),
  })
  .openapi('Attachment', { description: 'An uploaded file (the extracted text is not part of it).' });
const ProjectSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    instructions: z.string().nullable(),
    defaults: z.record(z.unknown()),
    member_count: z.number().int(),
    knowledge_file_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('ProjectSummary');
const Project = ProjectSummary.extend({ knowledge_files: z.array(Attachment) }).openapi('Project');
const Deleted = z.object({ id: z.string(), status: z.literal('deleted') });

const routes = (): RouteDescription[] => [
  {
    method: 'get',
    path: '/conversations',
    summary: "The caller's conversations, most recent first",
    query: ListQuery,
    responses: { 200: z.object({ conversations: z.array(Conversation).max(200), total: z.number().int() }) },
  },
  {
    method: 'post',
    path: '/conversations',
    summary: 'Create a conversation',
    body: CreateConversationBody,
    responses: { 200: z.object({ id: z.string(), status: z.literal('created') }) },
  },
  {
    method: 'get',
    path: '/conversations/:id/messages',
    summary: "A conversation's messages in order",
    params: ConversationParams,
    responses: { 200: z.object({ messages: z.array(Message), total: z.number().int() }) },
  },
  {
    method: 'patch',
    path: '/conversations/:id',
    summary: 'Rename, retag or move a conversation',
    params: ConversationParams,
    body: UpdateConversationBody,
    responses: { 200: Conversation },
  },
  {
    method: 'delete',
    path: '/conversations/:id',
    summary: 'Soft-delete a conversation',
    params: ConversationParams,
    responses: { 200: Deleted },
  },
  {
    method: 'post',
    path: '/conversations/:id/attachments',
    summary: 'Upload an attachment (multipart `file`); its text is extracted',
    params: ConversationParams,
    body: 'multipart',
    responses: { 200: Attachment },
  },
  {
    method: 'get',
    path: '/conversations/:id/attachments',
    summary: "A conversation's attachments",
    params: ConversationParams,
    responses: { 200: z.object({ attachments: z.array(Attachment), total: z.number().int() }) },
  },
  {
    method: 'delete',
    path: '/conversations/:id/attachments/:aid',
    summary: 'Remove an attachment',
    params: AttachmentParams,
    responses: { 200: Deleted },
  },
  {
    method: 'get',
    path: '/projects',
    summary: "The caller's projects",
    responses: { 200: z.object({ projects: z.array(ProjectSummary), total: z.number().int() }) },
  },
  {
    method: 'post',
    path: '/projects',
    summary: 'Create a project',
    body: CreateProjectBody,
    responses: { 201: Project },
  },
  {
    method: 'get',
    path: '/projects/:id',
    summary: 'A project with its knowledge files',
    params: ProjectParams,
    responses: { 200: Project },
  },
  {
    method: 'patch',
    path: '/projects/:id',
    summary: 'Change a project',
    params: ProjectParams,
    body: UpdateProjectBody,
    responses: { 200: Project },
  },
  {
    method: 'delete',
    path: '/projects/:id',
    summary: 'Delete a project',
    params: ProjectParams,
    responses: { 200: Deleted },
  },
  {
    method: 'post',
    path: '/projects/:id/knowledge',
    summary: 'Upload a knowledge file (multipart `file`)',
    params: ProjectParams,
    body: 'multipart',
    responses: { 200: Attachment },
  },
  {
    method: 'delete',
    path: '/projects/:id/knowledge/:fid',
    summary: 'Remove a knowledge file',
    params: KnowledgeParams,
    responses: { 200: Deleted },
  },
];

const internalRoutes = (): RouteDescription[] =>
  routes().map((r) => ({
    ...r,
    description:
      'Internal listener: stamped identity headers win; otherwise a local tool names itself with `user_id` (and `tenant_id`) in the query or JSON body.',
  }));

export const conversationsApi: ApiDescription = { tag: 'conversations', public: routes, internal: internalRoutes };
