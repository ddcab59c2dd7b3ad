import type { Decider } from '../../src/platform/command-handling/decider';
import { z } from 'zod';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import {
  CONVERSATION_ID,
  CONVERSATION_TYPES,
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
  type ConversationType,
} from '../../streams/conversations/conversation';
import { findProjectOwner } from '../../queries/conversations/projects';
import { boundedRecord } from '../../src/platform/http/bounded';

/** POST /conversations. `user_id` is the header-less fallback owner. */
export const CreateConversationBody = z.object({
  agent_id: z.string().trim().min(1).max(128),
  id: CONVERSATION_ID.optional(),
  title: z.string().trim().min(1).max(500).nullable().optional(),
  conversation_type: z.enum(CONVERSATION_TYPES).nullable().optional(),
  user_id: z.string().min(1).max(128).optional(),
  project_id: z.string().min(1).max(128).nullable().optional(),
  metadata: boundedRecord(z.unknown()).nullable().optional(),
});

export interface CreateConversation {
  type: 'CreateConversation';
  conversationId: string;
  userId: string | null;
  agentId: string;
  title: string | null;
  conversationType: ConversationType | null;
  projectId: string | null;
  metadata: Record<string, unknown> | null;
}

/**
 * Idempotent on the id: the same owner creating it again changes nothing. Another owner's
 * id, or a deleted conversation's, is a conflict: answering 200 would claim a success the
 * caller does not have, and 404 would be false (the id exists).
 */
export function decideCreateConversation(command: CreateConversation, state: ConversationState): ConversationEvent[] {
  if (state.status === 'none') {
    const { conversationId, userId, agentId, title, conversationType, projectId, metadata } = command;
    return [
      {
        type: 'ConversationCreated',
        data: { conversationId, userId, agentId, title, conversationType, projectId, metadata },
      },
    ];
  }
  if (state.status === 'deleted') throw new Conflict('A deleted conversation already uses this id');
  if (state.ownerId !== command.userId) throw new Conflict('Another conversation already uses this id');
  return [];
}

const decider: Decider<CreateConversation, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideCreateConversation,
};

export async function createConversation(
  deps: Pick<PlatformDeps, 'handle' | 'knex'>,
  tenantId: string,
  command: CreateConversation,
): Promise<void> {
  // Membership in a project the caller cannot see would leak its existence and its settings.
  if (command.projectId) {
    const owner = await findProjectOwner(deps.knex, tenantId, command.projectId);
    if (owner === undefined || (command.userId !== null && owner !== command.userId))
      throw new NotFound('Project not found');
  }
  await deps.handle(decider, conversationStream(tenantId, command.conversationId), command, {
    tenantId,
    actorId: command.userId ?? 'internal',
  });
}
