import { z } from 'zod';
import { CONVERSATION_ID } from '../../../streams/conversations/conversation';

/** Request schemas of the conversations routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  project_id: z.string().min(1).max(128).optional(),
});

export const ConversationParams = z.object({ id: CONVERSATION_ID });

export const AttachmentParams = z.object({ id: CONVERSATION_ID, aid: z.string().min(1).max(128) });

export const ProjectParams = z.object({ id: z.string().min(1).max(128) });

export const KnowledgeParams = z.object({ id: z.string().min(1).max(128), fid: z.string().min(1).max(128) });
