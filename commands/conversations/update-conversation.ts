import type { Decider } from '../../src/platform/command-handling/decider';
import { z } from 'zod';
import type { PlatformDeps } from '../../src/platform/context-module';
import {
  accessibleConversation,
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
  SETTABLE_STATUSES,
} from '../../streams/conversations/conversation';

/** PATCH /conversations/{id}: title and/or status; `deleted` only through DELETE. */
export const UpdateConversationBody = z
  .object({
    title: z.string().trim().min(1).max(500).optional(),
    status: z.enum(SETTABLE_STATUSES).optional(),
  })
  .strict()
  .refine((b) => b.title !== undefined || b.status !== undefined, { message: 'give a title and/or a status' });

export interface UpdateConversation {
  type: 'UpdateConversation';
  callerId: string | null;
  title?: string;
  status?: (typeof SETTABLE_STATUSES)[number];
}

export function decideUpdateConversation(command: UpdateConversation, state: ConversationState): ConversationEvent[] {
  const conversation = accessibleConversation(state, command.callerId);
  const events: ConversationEvent[] = [];
  if (command.title !== undefined && command.title !== conversation.title)
    events.push({ type: 'ConversationRetitled', data: { title: command.title } });
  if (command.status !== undefined && command.status !== conversation.conversationStatus) {
    events.push({
      type: 'ConversationStatusChanged',
      data: { from: conversation.conversationStatus, to: command.status },
    });
  }
  return events;
}

const decider: Decider<UpdateConversation, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideUpdateConversation,
};

export async function updateConversation(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  conversationId: string,
  command: UpdateConversation,
): Promise<void> {
  await deps.handle(decider, conversationStream(tenantId, conversationId), command, {
    tenantId,
    actorId: command.callerId ?? 'internal',
  });
}
