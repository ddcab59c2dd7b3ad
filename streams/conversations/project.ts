import type { Aggregate } from '../../src/platform/command-handling/aggregate';
import { NotFound } from '../../src/platform/domain-errors';
import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { ExtractedFileFields, upcastExtractedFile } from './extracted-file';

/**
 * A project: owner-scoped settings shared by its member
 * conversations, and up to five knowledge files whose extracted text is evented like an
 * attachment's. Deleting a project detaches its members in the read model (their
 * `project_id` becomes null) and drops its knowledge files.
 */
export const projectStream = (tenantId: string, projectId: string) => `conversations.project-${tenantId}-${projectId}`;

export const MAX_KNOWLEDGE_FILES = 5;
export const THINKING_MODES = ['adaptive', 'disabled'] as const;

/** `defaults` is an open object; `thinking_mode`, when present, must be a known mode. */
export const ProjectDefaults = z.object({ thinking_mode: z.enum(THINKING_MODES).nullable().optional() }).passthrough();
export type ProjectDefaults = z.infer<typeof ProjectDefaults>;

const ProjectCreated = z.object({
  projectId: z.string(),
  userId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  instructions: z.string().nullable(),
  defaults: ProjectDefaults,
});
const ProjectUpdated = z.object({
  name: z.string().optional(),
  description: z.string().nullable().optional(),
  instructions: z.string().nullable().optional(),
  defaults: ProjectDefaults.optional(),
});
const ProjectDeleted = z.object({ projectId: z.string() });
const KnowledgeFileAdded = z.preprocess(upcastExtractedFile, z.object({ fileId: z.string(), ...ExtractedFileFields }));
const KnowledgeFileRemoved = z.object({ fileId: z.string() });

export type ProjectEvent =
  | { type: 'ProjectCreated'; data: z.infer<typeof ProjectCreated> }
  | { type: 'ProjectUpdated'; data: z.infer<typeof ProjectUpdated> }
  | { type: 'ProjectDeleted'; data: z.infer<typeof ProjectDeleted> }
  | { type: 'KnowledgeFileAdded'; data: z.infer<typeof KnowledgeFileAdded> }
  | { type: 'KnowledgeFileRemoved'; data: z.infer<typeof KnowledgeFileRemoved> };

export type ProjectChanges = z.infer<typeof ProjectUpdated>;
export type KnowledgeFileAddedData = z.infer<typeof KnowledgeFileAdded>;

const schemas: Record<ProjectEvent['type'], z.ZodTypeAny> = {
  ProjectCreated,
  ProjectUpdated,
  ProjectDeleted,
  KnowledgeFileAdded,
  KnowledgeFileRemoved,
};
export const PROJECT_EVENT_TYPES = Object.keys(schemas) as ProjectEvent['type'][];

export function readProjectEvent(event: Pick<RecordedEvent, 'type' | 'data'>): ProjectEvent {
  const schema = schemas[event.type as ProjectEvent['type']];
  if (!schema) throw new Error(`not a project event: ${event.type}`);
  return { type: event.type, data: schema.parse(event.data) } as ProjectEvent;
}

interface ProjectFields {
  ownerId: string;
  name: string;
  description: string | null;
  instructions: string | null;
  defaults: ProjectDefaults;
  fileIds: readonly string[];
}

export type ProjectState =
  { status: 'none' } | ({ status: 'active' } & ProjectFields) | { status: 'deleted'; ownerId: string };

export const initialProjectState: ProjectState = { status: 'none' };

export function evolveProject(state: ProjectState, event: ProjectEvent): ProjectState {
  switch (event.type) {
    case 'ProjectCreated': {
      const { userId, name, description, instructions, defaults } = event.data;
      return { status: 'active', ownerId: userId, name, description, instructions, defaults, fileIds: [] };
    }
    case 'ProjectDeleted':
      return state.status === 'active' ? { status: 'deleted', ownerId: state.ownerId } : state;
  }
  if (state.status !== 'active') return state;
  switch (event.type) {
    case 'ProjectUpdated': {
      const changes = Object.fromEntries(Object.entries(event.data).filter(([, v]) => v !== undefined));
      return { ...state, ...changes };
    }
    case 'KnowledgeFileAdded':
      return { ...state, fileIds: [...state.fileIds, event.data.fileId] };
    case 'KnowledgeFileRemoved':
      return { ...state, fileIds: state.fileIds.filter((id) => id !== event.data.fileId) };
  }
}

export const projectAggregate: Aggregate<ProjectState, ProjectEvent> = {
  stream: (tenantId, projectId) => projectStream(tenantId, projectId),
  eventTypes: PROJECT_EVENT_TYPES,
  initialState: initialProjectState,
  evolve: evolveProject,
  read: readProjectEvent,
};

/** Projects are owner-scoped: anyone else's project answers like a missing one. */
export function ownedProject(state: ProjectState, callerId: string): Extract<ProjectState, { status: 'active' }> {
  if (state.status !== 'active' || state.ownerId !== callerId) throw new NotFound('Project not found');
  return state;
}
