import { z } from 'zod';
import { boundedRecord } from '../../platform/http/bounded';

export const int = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

export const price = (fallback: number) => z.coerce.number().nonnegative().max(100_000).default(fallback);

export const TenantQuery = { tenant_id: z.string().min(1).max(64).optional() };

/** Request schemas of the graph routes, shared by http.ts (parsing) and openapi.ts (the contract). */
export const VertexPath = z.object({ label: z.string().min(1).max(64), id: z.string().min(1).max(200) });

export const ContextQuery = z.object({
  entity_type_key: z.string().min(1).max(64),
  domain_tags: z
    .string()
    .max(500)
    .optional()
    .transform((tags) =>
      (tags ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  depth: int(1, 3, 1),
  max_per_relationship: int(1, 1000, 25),
  max_tokens: int(1, 1_000_000, 8000),
  ...TenantQuery,
});

export const ImpactQuery = z.object({ max_depth: int(1, 6, 3), wti_price: price(75), henry_hub_price: price(3) });

export const LabelParams = z.object({ label: z.string().min(1).max(64) });

export const EntityListQuery = z.object({ limit: int(1, 1000, 100), offset: int(0, 10_000_000, 0) });

export const IdParams = z.object({ id: z.string().min(1).max(200) });

/** An entity or relationship type's key (64 characters at most, streams/graph/schema.ts). */
export const TypeKeyParams = z.object({ key: z.string().min(1).max(64) });

export const RuleIdParams = z.object({ id: z.string().min(1).max(100) });

export const EdgesQuery = z.object({
  edge_label: z.string().min(1).max(64).optional(),
  direction: z.enum(['out', 'in', 'both']).default('both'),
  limit: int(1, 10_000, 1000),
});

export const TenantOnlyQuery = z.object(TenantQuery);

export const TemplateBody = z.object({
  template_id: z.string().min(1).max(100),
  params: boundedRecord(z.unknown()).default({}),
});

export const WellApiParams = z.object({ well_api: z.string().min(1).max(200) });

export const TreeQuery = z.object({
  root_label: z.string().min(1).max(64),
  root_id: z.string().min(1).max(200),
  max_depth: int(1, 10, 6),
});

export const RulesQuery = z.object({
  edge_label: z.string().max(64).optional(),
  from_label: z.string().max(64).optional(),
  to_label: z.string().max(64).optional(),
});
