import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * A prompt template and the lifecycle of its versions: one stream per template, so the
 * rules that span versions (one draft per author, one pre-production version, promoting a
 * version retires the active one in the same event) are decided against one revision.
 * Version bodies travel in the events (the read models are rebuilt from them) but never
 * enter the decision state, which keeps per version only its number, status and author.
 *
 * Version statuses: `draft`, `pre_production` (the pre-production stage; the one string
 * the API answers for it), `active`, `rejected`, `retired`.
 */
export const VERSION_STATUSES = ['draft', 'pre_production', 'active', 'rejected', 'retired'] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

export const TEMPLATE_SLUG = /^[a-z][a-z0-9_-]{0,63}$/;

export const FindingSchema = z.object({
  kind: z.string(),
  message: z.string(),
  line: z.number(),
  column: z.number(),
  excerpt: z.string(),
});
export const ValidationSchema = z.object({
  valid: z.boolean(),
  syntaxOk: z.boolean(),
  subsetOk: z.boolean(),
  injectionScan: z.object({ status: z.enum(['clean', 'warn', 'fail']), findings: z.array(FindingSchema) }),
  tokenEstimate: z.number().int(),
  variablesExtracted: z.array(z.string()),
  unknownVariables: z.array(z.string()),
  errors: z.array(z.string()),
  warnings: z.array(z.string()),
});
export type Validation = z.infer<typeof ValidationSchema>;

const TemplateFields = {
  name: z.string(),
  description: z.string(),
  budgetTierId: z.string().nullable(),
  /** Declared variables; null means "whatever the body uses". */
  variables: z.array(z.string()).nullable(),
};
const Content = {
  body: z.string(),
  changeNote: z.string(),
  tokenEstimate: z.number().int(),
  validation: ValidationSchema,
};

export const TemplateEventSchemas = {
  PromptTemplateCreated: z.object({
    templateId: z.string(),
    namespaceId: z.string(),
    namespaceName: z.string(),
    slug: z.string(),
    ...TemplateFields,
    createdBy: z.string(),
    createdAt: z.string(),
  }),
  /** Only the fields that changed. */
  PromptTemplateUpdated: z
    .object({ templateId: z.string(), ...TemplateFields, updatedBy: z.string(), updatedAt: z.string() })
    .partial({ name: true, description: true, budgetTierId: true, variables: true }),
  PromptTemplateDeleted: z.object({
    templateId: z.string(),
    namespaceId: z.string(),
    slug: z.string(),
    deletedBy: z.string(),
    deletedAt: z.string(),
  }),
  PromptDraftCreated: z.object({
    templateId: z.string(),
    versionId: z.string(),
    versionNumber: z.number().int(),
    authorId: z.string(),
    ...Content,
    createdAt: z.string(),
  }),
  /** `changeNote` null: the note stays as it was. */
  PromptDraftSaved: z.object({
    templateId: z.string(),
    versionId: z.string(),
    ...Content,
    changeNote: z.string().nullable(),
    savedBy: z.string(),
    savedAt: z.string(),
  }),
  PromptDraftDiscarded: z.object({
    templateId: z.string(),
    versionId: z.string(),
    discardedBy: z.string(),
    discardedAt: z.string(),
  }),
  PromptPromotedToPreProduction: z.object({
    templateId: z.string(),
    versionId: z.string(),
    targetUsers: z.array(z.string()),
    targetRoles: z.array(z.string()),
    /** How a conflict with another pre-production version was settled, `none` without one. */
    resolution: z.enum(['none', 'override', 'merge']),
    /** The pre-production version this one displaced (it is retired by this event). */
    displacedVersionId: z.string().nullable(),
    promotedBy: z.string(),
    promotedAt: z.string(),
  }),
  PromptApproved: z.object({
    templateId: z.string(),
    versionId: z.string(),
    approvedBy: z.string(),
    approvedAt: z.string(),
  }),
  PromptRejected: z.object({
    templateId: z.string(),
    versionId: z.string(),
    reason: z.string(),
    rejectedBy: z.string(),
    rejectedAt: z.string(),
  }),
  PromptPromoted: z.object({
    templateId: z.string(),
    versionId: z.string(),
    fromStatus: z.enum(VERSION_STATUSES),
    /** The version that was active until now; retired by this same event. */
    retiredVersionId: z.string().nullable(),
    promotedBy: z.string(),
    promotedAt: z.string(),
  }),
};

export type TemplateEvent = EventsOf<typeof TemplateEventSchemas>;

export interface VersionSummary {
  number: number;
  status: VersionStatus;
  authorId: string;
  valid: boolean;
}

export interface PreProductionSlot {
  versionId: string;
  targetUsers: string[];
  targetRoles: string[];
}

export type TemplateState =
  | { status: 'none' }
  | { status: 'deleted' }
  | {
      status: 'live';
      templateId: string;
      namespaceId: string;
      slug: string;
      nextVersionNumber: number;
      versions: Record<string, VersionSummary>;
      preProduction: PreProductionSlot | null;
      activeVersionId: string | null;
    };

export type LiveTemplate = Extract<TemplateState, { status: 'live' }>;

const withVersion = (state: LiveTemplate, id: string, patch: Partial<VersionSummary>): LiveTemplate['versions'] =>
  state.versions[id] ? { ...state.versions, [id]: { ...state.versions[id], ...patch } } : state.versions;

export function evolveTemplate(state: TemplateState, event: TemplateEvent): TemplateState {
  if (event.type === 'PromptTemplateCreated') {
    const d = event.data;
    return {
      status: 'live',
      templateId: d.templateId,
      namespaceId: d.namespaceId,
      slug: d.slug,
      nextVersionNumber: 1,
      versions: {},
      preProduction: null,
      activeVersionId: null,
    };
  }
  if (event.type === 'PromptTemplateDeleted') return { status: 'deleted' };
  if (state.status !== 'live') return state;
  switch (event.type) {
    case 'PromptTemplateUpdated':
    case 'PromptApproved':
      return state;
    case 'PromptDraftCreated': {
      const d = event.data;
      return {
        ...state,
        nextVersionNumber: Math.max(state.nextVersionNumber, d.versionNumber + 1),
        versions: {
          ...state.versions,
          [d.versionId]: { number: d.versionNumber, status: 'draft', authorId: d.authorId, valid: d.validation.valid },
        },
      };
    }
    case 'PromptDraftSaved':
      return { ...state, versions: withVersion(state, event.data.versionId, { valid: event.data.validation.valid }) };
    case 'PromptDraftDiscarded': {
      const { [event.data.versionId]: _gone, ...versions } = state.versions;
      return { ...state, versions };
    }
    case 'PromptPromotedToPreProduction': {
      const d = event.data;
      let versions = withVersion(state, d.versionId, { status: 'pre_production' });
      if (d.displacedVersionId)
        versions = withVersion({ ...state, versions }, d.displacedVersionId, { status: 'retired' });
      return {
        ...state,
        versions,
        preProduction: { versionId: d.versionId, targetUsers: d.targetUsers, targetRoles: d.targetRoles },
      };
    }
    case 'PromptRejected':
      return {
        ...state,
        versions: withVersion(state, event.data.versionId, { status: 'rejected' }),
        preProduction: state.preProduction?.versionId === event.data.versionId ? null : state.preProduction,
      };
    case 'PromptPromoted': {
      const d = event.data;
      let versions = withVersion(state, d.versionId, { status: 'active' });
      if (d.retiredVersionId) versions = withVersion({ ...state, versions }, d.retiredVersionId, { status: 'retired' });
      return {
        ...state,
        versions,
        activeVersionId: d.versionId,
        preProduction: state.preProduction?.versionId === d.versionId ? null : state.preProduction,
      };
    }
  }
}

/** Drafts are saved often: a long-lived template's stream is read from a snapshot. */
export const templateAggregate: Aggregate<TemplateState, TemplateEvent> = {
  stream: (tenantId, id) => `prompts.template-${tenantId}-${id}`,
  eventTypes: Object.keys(TemplateEventSchemas) as TemplateEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveTemplate,
  read: eventReader('prompt template', TemplateEventSchemas),
  snapshot: { every: 50, version: 1, toJSON: (state) => state, fromJSON: (json) => json as TemplateState },
};

/** Every event type of the context, for the audit projection and cache invalidation. */
export const RESOLUTION_CHANGING_EVENTS: readonly TemplateEvent['type'][] = [
  'PromptPromotedToPreProduction',
  'PromptRejected',
  'PromptPromoted',
  'PromptTemplateDeleted',
];
