import { expect } from 'chai';
import { conversationsProjector } from '../../../projections/conversations/conversations-read-model';
import { conversationStream } from '../../../streams/conversations/conversation';
import { projectionSpec } from '../../support/specs';

const stream = conversationStream('tenant-spec', 'conv-1');
const created = {
  stream,
  type: 'ConversationCreated',
  data: {
    conversationId: 'conv-1',
    userId: 'u1',
    agentId: 'filing-agent',
    title: null,
    conversationType: null,
    projectId: null,
    metadata: null,
  },
};
const message = (n: number, role: string, content: string) => ({
  stream,
  type: 'MessageAppended',
  data: { messageId: `m${n}`, sequenceNumber: n, role, content, userId: 'u1', toolName: null, metadata: null },
});

describe('conversations projection (given events → rows)', () => {
  it('a conversation with messages: counts, preview, first user message, active status', async () => {
    await projectionSpec(conversationsProjector)
      .given([
        created,
        message(1, 'user', 'What is due for lease 12345?'),
        message(2, 'assistant', 'Form PR for March is due April 30.'),
      ])
      .then(async (knex) => {
        const row = await knex('conversations_conversations').where({ id: 'conv-1' }).first();
        expect(row).to.include({
          status: 'active',
          message_count: 2,
          preview: 'Form PR for March is due April 30.',
          first_user_message: 'What is due for lease 12345?',
        });
        expect(
          (await knex('conversations_messages').orderBy('sequence_number').select('role')).map((r) => r.role),
        ).to.deep.equal(['user', 'assistant']);
      });
  });

  it('old snake_case message events project like new ones', async () => {
    await projectionSpec(conversationsProjector)
      .given([
        created,
        {
          stream,
          type: 'MessageAppended',
          data: {
            messageId: 'm1',
            sequence_number: 1,
            role: 'user',
            content: 'hi',
            user_id: 'u1',
            tool_name: null,
            metadata: null,
          },
        },
      ])
      .then(async (knex) => {
        expect(await knex('conversations_messages').first('sequence_number', 'user_id')).to.deep.equal({
          sequence_number: 1,
          user_id: 'u1',
        });
      });
  });
});
