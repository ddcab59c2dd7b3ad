import type { Knex } from 'knex';
import { NotFound } from '../../src/platform/domain-errors';
import { T } from '../../projections/conversations/tables';
import { type AttachmentView, fileView } from './attachments';

export interface ProjectSummary {
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  defaults: Record<string, unknown>;
  member_count: number;
  knowledge_file_count: number;
  created_at: string;
  updated_at: string;
}

export interface ProjectView extends ProjectSummary {
  knowledge_files: AttachmentView[];
}

function summaryOf(r: Record<string, any>): ProjectSummary {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    instructions: r.instructions,
    defaults: r.defaults,
    member_count: Number(r.member_count),
    knowledge_file_count: Number(r.knowledge_file_count),
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** Member counts leave out soft-deleted conversations. */
function withCounts(knex: Knex, tenantId: string) {
  return knex(`${T.projects} as p`)
    .where('p.tenant_id', tenantId)
    .select(
      'p.*',
      knex(T.conversations)
        .count('*')
        .where('tenant_id', tenantId)
        .whereRaw('project_id = p.id')
        .whereNull('deleted_at')
        .as('member_count'),
      knex(T.projectFiles)
        .count('*')
        .where('tenant_id', tenantId)
        .whereRaw('project_id = p.id')
        .as('knowledge_file_count'),
    );
}

export async function listProjects(
  knex: Knex,
  tenantId: string,
  userId: string,
): Promise<{ projects: ProjectSummary[]; total: number }> {
  const rows = await withCounts(knex, tenantId)
    .where('p.user_id', userId)
    .orderBy([{ column: 'p.updated_at', order: 'desc' }, { column: 'p.id' }]);
  return { projects: rows.map(summaryOf), total: rows.length };
}

/** The caller's project with its knowledge files; anyone else's is "not found". */
export async function ownedProjectView(knex: Knex, tenantId: string, userId: string, id: string): Promise<ProjectView> {
  const row = await withCounts(knex, tenantId).where({ 'p.id': id, 'p.user_id': userId }).first();
  if (!row) throw new NotFound('Project not found');
  const files = await knex(T.projectFiles)
    .where({ tenant_id: tenantId, project_id: id })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return { ...summaryOf(row), knowledge_files: files.map(fileView) };
}

/** Owner of a live project, or undefined when the tenant has no such project. */
export async function findProjectOwner(knex: Knex, tenantId: string, id: string): Promise<string | undefined> {
  const row = await knex(T.projects).where({ tenant_id: tenantId, id }).first('user_id');
  return row?.user_id;
}

export async function getKnowledgeFile(
  knex: Knex,
  tenantId: string,
  projectId: string,
  id: string,
): Promise<AttachmentView | undefined> {
  const row = await knex(T.projectFiles).where({ tenant_id: tenantId, project_id: projectId, id }).first();
  return row ? fileView(row) : undefined;
}

/**
 * What a turn reloads from its project: instructions, defaults and the
 * knowledge files' extracted text, for the agent context to inject once per conversation.
 */
export async function projectContext(knex: Knex, tenantId: string, id: string) {
  const project = await knex(T.projects).where({ tenant_id: tenantId, id }).first();
  if (!project) return null;
  const files = await knex(T.projectFiles)
    .where({ tenant_id: tenantId, project_id: id })
    .orderBy('created_at')
    .select('id', 'filename', 'text');
  return {
    id: project.id as string,
    name: project.name as string,
    instructions: project.instructions as string | null,
    defaults: project.defaults as Record<string, unknown>,
    knowledge: files as Array<{ id: string; filename: string; text: string }>,
  };
}
