import { z } from 'zod';
import type { AgentTool } from '../../platform/agent-tools';
import { headersFor } from '../../platform/agent-tools';
import { KIND_NAMES, UPLOAD_LIMIT_BYTES } from '../../platform/infra/extraction';
import { MAX_ATTACHMENTS_PER_MESSAGE } from '../../../streams/conversations/conversation';
import { PERMISSIONS, ROLE_PERMISSIONS, ROLES } from '../../../streams/identity/permissions';
import { FILING_TEMPLATES } from '../../../streams/checklists/filing-templates';

/**
 * How-to questions about the platform itself, answered from what the code enforces: the
 * attachment formats the upload reads (its file-type sniffing) and its limits, the roles and
 * what each may do (the permission matrix), the forms that can be filed (the filing
 * templates). Nothing here is written twice: a format added to the upload is in the answer.
 */
export const HELP_TOPICS = ['attachments', 'roles', 'filings'] as const;
const HelpArgs = z
  .object({
    topic: z
      .enum(HELP_TOPICS)
      .describe('attachments (formats, size, how many), roles (who may do what), filings (forms that can be filed)'),
  })
  .strict();

function topicLines(topic: (typeof HELP_TOPICS)[number]): string[] {
  if (topic === 'attachments') {
    const formats = Object.values(KIND_NAMES).map((name) => (name === 'TXT' ? 'plain text (TXT)' : name));
    return [
      `You can attach ${formats.slice(0, -1).join(', ')} and ${formats.at(-1)} files.`,
      `- Size: up to ${Math.round(UPLOAD_LIMIT_BYTES / (1024 * 1024))} MB per file; the type is read from the file's bytes, so a renamed file of another format is refused.`,
      `- Per message: up to ${MAX_ATTACHMENTS_PER_MESSAGE} attachments of the conversation; their text is read into the turn.`,
      '- Password-protected documents and old binary Office files (DOC, XLS) cannot be read: save them as DOCX or XLSX.',
    ];
  }
  if (topic === 'roles') {
    return [
      `The platform has ${ROLES.length} roles: ${ROLES.join(', ')}.`,
      ...ROLES.map(
        (role) =>
          `- ${role}: ${role === 'admin' ? 'everything' : ROLE_PERMISSIONS[role].map((p) => PERMISSIONS[p]).join('; ')}.`,
      ),
    ];
  }
  return [
    `These filings can be prepared, checked and sent for review: ${FILING_TEMPLATES.map((t) => `Form ${t.form}`).join(', ')}.`,
    ...FILING_TEMPLATES.map(
      (t) =>
        `- Form ${t.form}, ${t.title} (for a ${t.entityTypes.map((e) => e.toLowerCase()).join(' or ')}): ${t.description}`,
    ),
    '- A reviewer approves every submission before anything is filed.',
  ];
}

export const platformHelpTool: AgentTool = {
  name: 'platform_help',
  description:
    'How the platform works: which file formats can be attached and their limits, the roles and what each may do, which filings can be prepared and submitted.',
  parameters: HelpArgs,
  async run(args) {
    const { topic } = args as z.infer<typeof HelpArgs>;
    const lines = topicLines(topic);
    const rows = lines.slice(1).map((l) => ({ topic, answer: l.replace(/^- /, '') }));
    return {
      content: lines.join('\n'),
      result: {
        kind: 'table',
        title: lines[0],
        columns: ['topic', 'answer'],
        headers: headersFor(['topic', 'answer']),
        rows,
        total_rows: rows.length,
      },
    };
  },
};
