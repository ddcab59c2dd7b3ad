import { expect } from 'chai';
import { decideAddAttachment } from '../../../commands/conversations/add-attachment';
import { decideAppendMessage } from '../../../commands/conversations/append-message';
import { decideCreateConversation } from '../../../commands/conversations/create-conversation';
import { decideDeleteConversation } from '../../../commands/conversations/delete-conversation';
import { decideRemoveAttachment } from '../../../commands/conversations/remove-attachment';
import { decideUpdateConversation } from '../../../commands/conversations/update-conversation';
import { conversationAggregate, type ConversationState } from '../../../streams/conversations/conversation';
import { Conflict, NotFound, ValidationFailed } from '../../../src/platform/domain-errors';
import type { ConversationEvent } from '../../../streams/conversations/conversation';

type AnyCommand =
  | Parameters<typeof decideCreateConversation>[0]
  | Parameters<typeof decideUpdateConversation>[0]
  | Parameters<typeof decideDeleteConversation>[0]
  | Parameters<typeof decideAppendMessage>[0]
  | Parameters<typeof decideAddAttachment>[0]
  | Parameters<typeof decideRemoveAttachment>[0];
const conversationDecider = dispatching<ConversationState, ConversationEvent, AnyCommand>(conversationAggregate, {
  CreateConversation: decideCreateConversation,
  UpdateConversation: decideUpdateConversation,
  DeleteConversation: decideDeleteConversation,
  AppendMessage: decideAppendMessage,
  AddAttachment: decideAddAttachment,
  RemoveAttachment: decideRemoveAttachment,
});
import { dispatching, given } from '../../support/given';

const OWNER = 'user-owner';
const OTHER = 'user-other';

const created = (userId: string | null = OWNER): ConversationEvent => ({
  type: 'ConversationCreated',
  data: {
    conversationId: 'conv-1',
    userId,
    agentId: 'filing-agent',
    title: null,
    conversationType: null,
    projectId: null,
    metadata: null,
  },
});
const attachment = (id: string, filename = `${id}.pdf`): ConversationEvent => ({
  type: 'AttachmentAdded',
  data: {
    attachmentId: id,
    filename,
    contentType: 'application/pdf',
    sizeBytes: 100,
    tokenEstimate: 10,
    truncated: false,
    text: 'text',
  },
});
const message = (messageId: string, sequence: number): ConversationEvent => ({
  type: 'MessageAppended',
  data: {
    messageId,
    sequenceNumber: sequence,
    role: 'user',
    content: 'hi',
    userId: OWNER,
    toolName: null,
    metadata: null,
  },
});
const append = (
  overrides: Partial<{
    callerId: string | null;
    messageId: string;
    attachmentIds: string[];
    role: 'user' | 'assistant' | 'tool';
  }> = {},
) => ({
  type: 'AppendMessage' as const,
  callerId: OWNER,
  messageId: 'm-new',
  role: 'user' as const,
  content: 'What is due in March?',
  toolName: null,
  metadata: null,
  attachmentIds: [],
  ...overrides,
});
const create = (userId: string | null = OWNER) => ({
  type: 'CreateConversation' as const,
  conversationId: 'conv-1',
  userId,
  agentId: 'filing-agent',
  title: null,
  conversationType: null,
  projectId: null,
  metadata: null,
});

describe('conversation decider', () => {
  describe('create', () => {
    it('creates a new conversation', () => {
      given(conversationDecider).when(create()).then([created()]);
    });
    it('creating the same id again for the same owner changes nothing (idempotent)', () => {
      given(conversationDecider, [created()]).when(create()).thenNothing();
    });
    it('an id owned by another user is a conflict', () => {
      given(conversationDecider, [created()])
        .when(create(OTHER))
        .thenThrows(Conflict, /already uses this id/);
    });
    it('a deleted conversation id cannot be created again', () => {
      given(conversationDecider, [
        created(),
        { type: 'ConversationDeleted', data: { deletedAt: '2026-01-01T00:00:00Z' } },
      ])
        .when(create())
        .thenThrows(Conflict, /deleted/);
    });
  });

  describe('update and delete (owner guard)', () => {
    it('retitles and changes status in one command', () => {
      given(conversationDecider, [created()])
        .when({ type: 'UpdateConversation', callerId: OWNER, title: 'March filing', status: 'awaiting_hitl' })
        .then([
          { type: 'ConversationRetitled', data: { title: 'March filing' } },
          { type: 'ConversationStatusChanged', data: { from: 'created', to: 'awaiting_hitl' } },
        ]);
    });
    it('setting the values already in force records nothing', () => {
      given(conversationDecider, [created(), { type: 'ConversationRetitled', data: { title: 'T' } }])
        .when({ type: 'UpdateConversation', callerId: OWNER, title: 'T', status: 'created' })
        .thenNothing();
    });
    it("another user's conversation is not found", () => {
      given(conversationDecider, [created()])
        .when({ type: 'UpdateConversation', callerId: OTHER, title: 'x' })
        .thenThrows(NotFound);
      given(conversationDecider, [created()])
        .when({ type: 'DeleteConversation', callerId: OTHER })
        .thenThrows(NotFound);
    });
    it('an unowned conversation may be updated by anyone (internal pre-registration)', () => {
      given(conversationDecider, [created(null)])
        .when({ type: 'UpdateConversation', callerId: OTHER, title: 'x' })
        .then([{ type: 'ConversationRetitled', data: { title: 'x' } }]);
    });
    it('a caller without identity (internal tool) passes the guard', () => {
      given(conversationDecider, [created()])
        .when({ type: 'DeleteConversation', callerId: null })
        .then([{ type: 'ConversationDeleted', data: { deletedAt: '2026-01-15T12:00:00.000Z' } }]);
    });
    it('deleting twice is a no-op for the owner; updating a deleted conversation is not found', () => {
      const history = [
        created(),
        { type: 'ConversationDeleted', data: { deletedAt: '2026-01-01T00:00:00Z' } } as ConversationEvent,
      ];
      given(conversationDecider, history).when({ type: 'DeleteConversation', callerId: OWNER }).thenNothing();
      given(conversationDecider, history)
        .when({ type: 'UpdateConversation', callerId: OWNER, title: 'x' })
        .thenThrows(NotFound);
    });
    it('a missing conversation is not found', () => {
      given(conversationDecider).when({ type: 'DeleteConversation', callerId: OWNER }).thenThrows(NotFound);
    });
  });

  describe('append message', () => {
    it('numbers messages in sequence', () => {
      const [event] = given(conversationDecider, [created(), message('m1', 1), message('m2', 2)])
        .when(append())
        .events();
      expect(event.type).to.equal('MessageAppended');
      expect(event.data).to.include({ messageId: 'm-new', sequenceNumber: 3, role: 'user', userId: OWNER });
    });
    it('a retried append with the same message id records nothing', () => {
      given(conversationDecider, [created(), message('m1', 1)])
        .when(append({ messageId: 'm1' }))
        .thenNothing();
    });
    it('records the attachments of a user message as {id, filename}', () => {
      const [event] = given(conversationDecider, [
        created(),
        attachment('a1', 'lease.pdf'),
        attachment('a2', 'wells.csv'),
      ])
        .when(append({ attachmentIds: ['a1', 'a2'] }))
        .events();
      expect((event.data as { metadata: unknown }).metadata).to.deep.equal({
        attachments: [
          { id: 'a1', filename: 'lease.pdf' },
          { id: 'a2', filename: 'wells.csv' },
        ],
      });
    });
    it('a fourth attachment fails the append', () => {
      given(conversationDecider, [created(), attachment('a1'), attachment('a2'), attachment('a3'), attachment('a4')])
        .when(append({ attachmentIds: ['a1', 'a2', 'a3', 'a4'] }))
        .thenThrows(ValidationFailed, /at most 3/);
    });
    it('an attachment of another conversation (or a removed one) fails the append instead of being skipped', () => {
      given(conversationDecider, [created(), attachment('a1')])
        .when(append({ attachmentIds: ['a1', 'foreign'] }))
        .thenThrows(ValidationFailed, /foreign does not belong/);
      given(conversationDecider, [
        created(),
        attachment('a1'),
        { type: 'AttachmentRemoved', data: { attachmentId: 'a1' } },
      ])
        .when(append({ attachmentIds: ['a1'] }))
        .thenThrows(ValidationFailed);
    });
    it('appending to a deleted or foreign conversation is not found', () => {
      given(conversationDecider, [created(), { type: 'ConversationDeleted', data: { deletedAt: 'x' } }])
        .when(append())
        .thenThrows(NotFound);
      given(conversationDecider, [created()])
        .when(append({ callerId: OTHER }))
        .thenThrows(NotFound);
    });
    it('the first message makes a pre-registered conversation active', () => {
      const state = given(conversationDecider, [created(), message('m1', 1)]).state;
      expect(state.status === 'open' && state.conversationStatus).to.equal('active');
    });
  });

  describe('bounded decision state', () => {
    it('remembers only the latest message ids, however long the conversation', () => {
      const history = [created(), ...Array.from({ length: 500 }, (_, i) => message(`m${i + 1}`, i + 1))];
      const state = given(conversationDecider, history).state;
      expect(state.status === 'open' && state.messageCount).to.equal(500);
      expect(state.status === 'open' && state.recentMessages.length).to.equal(50);
      given(conversationDecider, history)
        .when(append({ messageId: 'm500' }))
        .thenNothing();
    });
    it("old snake_case message events are read as today's camelCase ones", () => {
      const old = {
        type: 'MessageAppended',
        data: {
          messageId: 'm1',
          sequence_number: 1,
          role: 'user',
          content: 'hi',
          user_id: OWNER,
          tool_name: null,
          metadata: null,
        },
      };
      expect(conversationAggregate.read(old).data).to.deep.equal({
        messageId: 'm1',
        sequenceNumber: 1,
        role: 'user',
        content: 'hi',
        userId: OWNER,
        toolName: null,
        metadata: null,
      });
    });
  });

  describe('attachments', () => {
    it('removing an unknown attachment is not found', () => {
      given(conversationDecider, [created()])
        .when({ type: 'RemoveAttachment', callerId: OWNER, attachmentId: 'nope' })
        .thenThrows(NotFound, /Attachment/);
    });
    it('removes a present attachment', () => {
      given(conversationDecider, [created(), attachment('a1')])
        .when({ type: 'RemoveAttachment', callerId: OWNER, attachmentId: 'a1' })
        .then([{ type: 'AttachmentRemoved', data: { attachmentId: 'a1' } }]);
    });
    it('adding to a foreign conversation is not found', () => {
      given(conversationDecider, [created()])
        .when({
          type: 'AddAttachment',
          callerId: OTHER,
          attachmentId: 'a',
          filename: 'f',
          sizeBytes: 1,
          extracted: { contentType: 'text/plain', text: 't', tokenEstimate: 1, truncated: false },
        })
        .thenThrows(NotFound);
    });
  });
});
