import { assertNever, Decider } from '../../src/command-handling/decider';
import { NotFound } from '../../src/domain/errors';
import {
  ConversationEvent,
  ConversationState,
  evolveConversation,
  initialConversationState,
  mayAccess,
  readConversationEvent,
} from '../../streams/conversations/conversation';
import { AddAttachment, decideAddAttachment } from './add-attachment';
import { AppendMessage, decideAppendMessage } from './append-message';
import { CreateConversation, decideCreateConversation } from './create-conversation';
import { decideDeleteConversation, DeleteConversation } from './delete-conversation';
import { decideRemoveAttachment, RemoveAttachment } from './remove-attachment';
import { decideUpdateConversation, UpdateConversation } from './update-conversation';

export type ConversationCommand = CreateConversation | UpdateConversation | DeleteConversation | AppendMessage | AddAttachment | RemoveAttachment;

/** One conversation aggregate; each command's branch lives in its own file. */
export const conversationDecider: Decider<ConversationCommand, ConversationState, ConversationEvent> = {
  initialState: initialConversationState,
  evolve: evolveConversation,
  read: readConversationEvent,
  decide(command, state, now) {
    switch (command.type) {
      case 'CreateConversation':
        return decideCreateConversation(command, state);
      case 'UpdateConversation':
        return decideUpdateConversation(command, state);
      case 'DeleteConversation':
        return decideDeleteConversation(command, state, now);
      case 'AppendMessage':
        return decideAppendMessage(command, state);
      case 'AddAttachment':
        return decideAddAttachment(command, state);
      case 'RemoveAttachment':
        return decideRemoveAttachment(command, state);
      default:
        return assertNever(command);
    }
  },
};

/**
 * The live conversation the caller may touch. Someone else's conversation answers exactly
 * like a missing one (spec 2 §7: 404), so ids cannot be probed.
 */
export function accessibleConversation(state: ConversationState, callerId: string | null): Extract<ConversationState, { status: 'open' }> {
  if (state.status !== 'open' || !mayAccess(state, callerId)) throw new NotFound('Conversation not found');
  return state;
}
