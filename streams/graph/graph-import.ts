import type { Properties } from './properties';

/**
 * Bulk loads (seed data, ingestion) are one stream per import whose events each carry a
 * batch of a few hundred vertices and edges: one append and one multi-row insert per
 * batch instead of one stream and one transaction per vertex.
 */
export interface ImportedVertex {
  id: string;
  label: string;
  entity_id: string;
  properties: Properties;
}

export interface ImportedEdge {
  id: string;
  label: string;
  from_id: string;
  from_label: string;
  to_id: string;
  to_label: string;
  properties: Properties;
}

export type GraphImportEvent =
  | { type: 'GraphImportStarted'; data: { importId: string; namespace: string; source: string; description: string } }
  | { type: 'GraphBatchImported'; data: { importId: string; namespace: string; batch: number; vertices: ImportedVertex[]; edges: ImportedEdge[] } }
  | { type: 'GraphImportCompleted'; data: { importId: string; namespace: string; vertices: number; edges: number; byLabel: Record<string, number> } };

export const IMPORT_EVENT_TYPES = ['GraphImportStarted', 'GraphBatchImported', 'GraphImportCompleted'] as const;

/** Entities (vertices + edges) per batch event: large enough to amortise, small enough to read back. */
export const IMPORT_BATCH_SIZE = 400;
