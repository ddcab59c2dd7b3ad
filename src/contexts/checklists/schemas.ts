import { z } from 'zod';
import { LIMITS } from '../../platform/http/bounded';
import { CHECKLIST_STATUSES } from '../../../streams/checklists/checklist';

/** Request schemas of the checklists routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const IdParams = z.object({ id: z.string().min(1).max(200) });

export const ItemParams = z.object({ id: z.string().min(1).max(200), idx: z.coerce.number().int().min(0).max(1000) });

export const ArtifactParams = ItemParams.extend({ aid: z.string().min(1).max(200) });

export const ChecklistArtifactParams = z.object({ id: z.string().min(1).max(200), aid: z.string().min(1).max(200) });

export const WorkspaceParams = z.object({ checklist_id: z.string().min(1).max(200) });

export const StreamQuery = z.object({
  rerun: z.enum(['true', 'false']).optional(),
  last_event_id: z.string().max(200).optional(),
});

export const ListQuery = z.object({
  entity_id: z.string().min(1).max(200).optional(),
  status: z.enum(CHECKLIST_STATUSES).optional(),
  template_id: z.string().min(1).max(100).optional(),
  /** Only checklists this user started (the start page's "your checklists"). */
  created_by: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
});

export const ArtifactQuery = z.object({
  artifact_type: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9_.-]+$/i)
    .default('supporting_document'),
});

/** JSON form of an artifact (created with `artifact_type`, `content`, `filename`). */
export const ArtifactJsonBody = z
  .object({
    artifact_type: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[a-z0-9_.-]+$/i),
    content: z.string().min(1).max(LIMITS.documentText),
    filename: z.string().trim().min(1).max(255),
  })
  .strict();
