import type { Knex } from 'knex';

/** The conversations context's read-model tables (one projector owns them all). */
export const T = {
  conversations: 'conversations_conversations',
  messages: 'conversations_messages',
  attachments: 'conversations_attachments',
  projects: 'conversations_projects',
  projectFiles: 'conversations_project_files',
} as const;

/** What an uploaded file leaves behind, the same for attachments and knowledge files. */
function extractedFileColumns(t: Knex.CreateTableBuilder): void {
  t.text('filename').notNullable();
  t.text('content_type').notNullable();
  t.integer('size_bytes').notNullable();
  t.integer('token_estimate').notNullable();
  t.boolean('truncated').notNullable();
  t.text('text').notNullable();
  t.timestamp('created_at', { useTz: true }).notNullable();
}

export async function createConversationTables(knex: Knex): Promise<void> {
  await knex.schema.createTable(T.conversations, (t) => {
    t.text('tenant_id').notNullable();
    t.text('id').notNullable();
    t.text('user_id');
    t.text('agent_id').notNullable();
    t.text('title');
    t.text('first_user_message');
    t.text('preview');
    t.text('status').notNullable();
    t.text('conversation_type');
    t.text('project_id');
    t.jsonb('metadata');
    t.integer('message_count').notNullable().defaultTo(0);
    t.timestamp('last_message_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true });
    t.primary(['tenant_id', 'id']);
    t.index(['tenant_id', 'project_id']);
  });
  // A user's list, most recent first (`listConversations`, its only reader by user): its first
  // page walks this index instead of sorting every conversation of the user (3.8 against
  // 0.07 ms at 10,000). It replaces an index on (tenant_id, user_id), which the planner took
  // (and sorted) while a fast-growing table had no statistics yet.
  await knex.raw(
    `CREATE INDEX conversations_recent ON ${T.conversations} (tenant_id, user_id, (coalesce(last_message_at, created_at)) DESC, created_at DESC, id) WHERE deleted_at IS NULL`,
  );
  await knex.schema.createTable(T.messages, (t) => {
    t.text('tenant_id').notNullable();
    t.text('conversation_id').notNullable();
    t.text('id').notNullable();
    t.integer('sequence_number').notNullable();
    t.text('role').notNullable();
    t.text('content').notNullable();
    t.text('user_id');
    t.text('tool_name');
    t.jsonb('metadata');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['tenant_id', 'conversation_id', 'sequence_number']);
  });
  await knex.schema.createTable(T.attachments, (t) => {
    t.text('tenant_id').notNullable();
    t.text('conversation_id').notNullable();
    t.text('id').notNullable();
    extractedFileColumns(t);
    t.primary(['tenant_id', 'conversation_id', 'id']);
  });
  await knex.schema.createTable(T.projects, (t) => {
    t.text('tenant_id').notNullable();
    t.text('id').notNullable();
    t.text('user_id').notNullable();
    t.text('name').notNullable();
    t.text('description');
    t.text('instructions');
    t.jsonb('defaults').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['tenant_id', 'id']);
    t.index(['tenant_id', 'user_id']);
  });
  await knex.schema.createTable(T.projectFiles, (t) => {
    t.text('tenant_id').notNullable();
    t.text('project_id').notNullable();
    t.text('id').notNullable();
    extractedFileColumns(t);
    t.primary(['tenant_id', 'project_id', 'id']);
  });
}
