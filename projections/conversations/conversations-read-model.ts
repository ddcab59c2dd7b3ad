import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import {
  CONVERSATION_EVENT_TYPES,
  CONVERSATION_STREAM_PREFIX,
  type ConversationEvent,
  readConversationEvent,
} from '../../streams/conversations/conversation';
import { PROJECT_EVENT_TYPES, type ProjectEvent, readProjectEvent } from '../../streams/conversations/project';
import { createConversationTables, T } from './tables';

const PREVIEW_CHARS = 80;
const FIRST_MESSAGE_CHARS = 200;

/** The aggregate id from `conversations.<aggregate>-<tenant>-<id>` (ids may hold dashes). */
function idOf(event: RecordedEvent, prefix: string): string {
  return event.stream.slice(prefix.length + event.metadata.tenantId.length + 1);
}

/**
 * Conversations, messages, attachments, projects and knowledge files in one projector:
 * deleting a project detaches its members, and a conversation created for a project that
 * is already gone joins none, which needs both tables in the same ordered pass to replay
 * identically.
 */
export const conversationsProjector: Projector = {
  name: 'conversations',
  consistency: 'inline',
  // 2: an index for a user's list, most recent first.
  version: 2,
  tables: [T.projectFiles, T.projects, T.attachments, T.messages, T.conversations],
  eventTypes: [...CONVERSATION_EVENT_TYPES, ...PROJECT_EVENT_TYPES],
  createTables: createConversationTables,
  async apply(trx, event) {
    if (event.stream.startsWith(CONVERSATION_STREAM_PREFIX))
      await applyConversation(trx, event, readConversationEvent(event));
    else if (event.stream.startsWith('conversations.project-')) await applyProject(trx, event, readProjectEvent(event));
  },
  /** A run of messages appended to one conversation (a turn's rows and answer) is one insert and one update. */
  async applyBatch(trx, events) {
    for (let i = 0; i < events.length;) {
      const run = [events[i]];
      while (
        i + run.length < events.length &&
        run[0].type === 'MessageAppended' &&
        events[i + run.length].type === 'MessageAppended' &&
        events[i + run.length].stream === run[0].stream
      )
        run.push(events[i + run.length]);
      if (run.length > 1) await applyMessages(trx, run);
      else await this.apply(trx, run[0]);
      i += run.length;
    }
  },
};

async function applyConversation(
  trx: Knex.Transaction,
  recorded: RecordedEvent,
  event: ConversationEvent,
): Promise<void> {
  const tenantId = recorded.metadata.tenantId;
  const id = idOf(recorded, CONVERSATION_STREAM_PREFIX);
  const at = recorded.recordedAt;
  const row = () => trx(T.conversations).where({ tenant_id: tenantId, id });
  switch (event.type) {
    case 'ConversationCreated': {
      const { userId, agentId, title, conversationType, projectId, metadata } = event.data;
      const project = projectId
        ? await trx(T.projects).where({ tenant_id: tenantId, id: projectId }).first('id')
        : undefined;
      await trx(T.conversations)
        .insert({
          tenant_id: tenantId,
          id,
          user_id: userId,
          agent_id: agentId,
          title,
          status: 'created',
          conversation_type: conversationType,
          project_id: project ? projectId : null,
          metadata: metadata === null ? null : JSON.stringify(metadata),
          created_at: at,
          updated_at: at,
        })
        .onConflict(['tenant_id', 'id'])
        .ignore();
      return;
    }
    case 'ConversationRetitled':
      await row().update({ title: event.data.title, updated_at: at });
      return;
    case 'ConversationStatusChanged':
      await row().update({ status: event.data.to, updated_at: at });
      return;
    case 'ConversationDeleted':
      await row().update({ status: 'deleted', deleted_at: event.data.deletedAt, updated_at: at });
      return;
    case 'MessageAppended':
      await applyMessages(trx, [recorded]);
      return;
    case 'AttachmentAdded': {
      const a = event.data;
      await trx(T.attachments)
        .insert({
          tenant_id: tenantId,
          conversation_id: id,
          id: a.attachmentId,
          filename: a.filename,
          content_type: a.contentType,
          size_bytes: a.sizeBytes,
          token_estimate: a.tokenEstimate,
          truncated: a.truncated,
          text: a.text,
          created_at: at,
        })
        .onConflict(['tenant_id', 'conversation_id', 'id'])
        .ignore();
      return;
    }
    case 'AttachmentRemoved':
      await trx(T.attachments)
        .where({ tenant_id: tenantId, conversation_id: id, id: event.data.attachmentId })
        .delete();
      return;
  }
}

/** Messages appended to one conversation, in order: their rows, and the conversation's counters and previews once. */
async function applyMessages(trx: Knex.Transaction, run: RecordedEvent[]): Promise<void> {
  const tenantId = run[0].metadata.tenantId;
  const id = idOf(run[0], CONVERSATION_STREAM_PREFIX);
  const messages = run.map((recorded) => ({
    at: recorded.recordedAt,
    m: (readConversationEvent(recorded) as Extract<ConversationEvent, { type: 'MessageAppended' }>).data,
  }));
  const rows = trx(T.messages).insert(
    messages.map(({ at, m }) => ({
      tenant_id: tenantId,
      conversation_id: id,
      id: m.messageId,
      sequence_number: m.sequenceNumber,
      role: m.role,
      content: m.content,
      user_id: m.userId,
      tool_name: m.toolName,
      metadata: m.metadata === null ? null : JSON.stringify(m.metadata),
      created_at: at,
    })),
  );
  const last = messages[messages.length - 1];
  const changes: Record<string, unknown> = {
    message_count: last.m.sequenceNumber,
    last_message_at: last.at,
    updated_at: last.at,
    status: trx.raw(`case when status = 'created' then 'active' else status end`),
  };
  // The preview shows what people said; tool rows carry machine payloads.
  const said = messages.filter(({ m }) => m.role === 'user' || m.role === 'assistant');
  if (said.length > 0) changes.preview = said[said.length - 1].m.content.slice(0, PREVIEW_CHARS);
  const firstUser = messages.find(({ m }) => m.role === 'user');
  if (firstUser)
    changes.first_user_message = trx.raw('coalesce(first_user_message, ?)', [
      firstUser.m.content.slice(0, FIRST_MESSAGE_CHARS),
    ]);
  // The rows and the counters in one statement: one round trip per run of messages.
  await trx.with('appended', rows).from(T.conversations).where({ tenant_id: tenantId, id }).update(changes);
}

async function applyProject(trx: Knex.Transaction, recorded: RecordedEvent, event: ProjectEvent): Promise<void> {
  const tenantId = recorded.metadata.tenantId;
  const id = idOf(recorded, 'conversations.project-');
  const at = recorded.recordedAt;
  switch (event.type) {
    case 'ProjectCreated': {
      const p = event.data;
      await trx(T.projects)
        .insert({
          tenant_id: tenantId,
          id,
          user_id: p.userId,
          name: p.name,
          description: p.description,
          instructions: p.instructions,
          defaults: JSON.stringify(p.defaults),
          created_at: at,
          updated_at: at,
        })
        .onConflict(['tenant_id', 'id'])
        .ignore();
      return;
    }
    case 'ProjectUpdated': {
      const { defaults, ...fields } = event.data;
      const changes: Record<string, unknown> = { ...fields, updated_at: at };
      if (defaults !== undefined) changes.defaults = JSON.stringify(defaults);
      await trx(T.projects).where({ tenant_id: tenantId, id }).update(changes);
      return;
    }
    case 'ProjectDeleted':
      await trx(T.conversations)
        .where({ tenant_id: tenantId, project_id: id })
        .update({ project_id: null, updated_at: at });
      await trx(T.projectFiles).where({ tenant_id: tenantId, project_id: id }).delete();
      await trx(T.projects).where({ tenant_id: tenantId, id }).delete();
      return;
    case 'KnowledgeFileAdded': {
      const f = event.data;
      await trx(T.projectFiles)
        .insert({
          tenant_id: tenantId,
          project_id: id,
          id: f.fileId,
          filename: f.filename,
          content_type: f.contentType,
          size_bytes: f.sizeBytes,
          token_estimate: f.tokenEstimate,
          truncated: f.truncated,
          text: f.text,
          created_at: at,
        })
        .onConflict(['tenant_id', 'project_id', 'id'])
        .ignore();
      return;
    }
    case 'KnowledgeFileRemoved':
      await trx(T.projectFiles).where({ tenant_id: tenantId, project_id: id, id: event.data.fileId }).delete();
      return;
  }
}
