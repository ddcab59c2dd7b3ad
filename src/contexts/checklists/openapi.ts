import { z, type ApiDescription } from '../../platform/openapi/describe';
import { CreateChecklistBody } from '../../../commands/checklists/create-checklist';
import { RejectChecklistBody } from '../../../commands/checklists/reject-checklist';
import { RequestExceptionBody } from '../../../commands/checklists/request-exception';
import { SubmitChecklistBody } from '../../../commands/checklists/submit-checklist';
import { UpdateChecklistBody } from '../../../commands/checklists/update-checklist';
import { UpdateChecklistItemBody } from '../../../commands/checklists/update-checklist-item';
import {
  ArtifactJsonBody,
  ArtifactParams,
  ArtifactQuery,
  ChecklistArtifactParams,
  IdParams,
  ItemParams,
  ListQuery,
  StreamQuery,
  WorkspaceParams,
} from './schemas';

/**
 * Compliance checklists and their artifacts in the API contract. Request schemas are
 * the router's own; responses are open objects with the fields known to be there (a first
 * pass, to be tightened here).
 */
const ts = z.string().nullable();
const Item = z
  .object({
    index: z.number().int(),
    key: z.string(),
    label: z.string(),
    item_type: z.string(),
    status: z.string(),
    notes: z.unknown(),
    updated_by: z.string().nullable(),
    updated_at: ts,
    artifact_count: z.number().int(),
  })
  .passthrough()
  .openapi('ChecklistItem');
/** The approved submission's filing (docs/checklists.md, "Filing"); null before an approval. */
const ChecklistFiling = z
  .object({
    status: z.enum(['pending', 'filed', 'failed']),
    approval_id: z.string(),
    filing_id: z.string().optional().describe('entity_id of the FilingPackage (filed)'),
    filed_on: z
      .object({ label: z.string(), entity_id: z.string() })
      .optional()
      .describe('the unit filed on: an oil well files on its lease'),
    advanced: z.record(z.string()).optional().describe('the unit properties moved forward, e.g. form_pr_period'),
    filed_by: z.string().optional(),
    filed_at: z.string().optional(),
    reason: z.string().optional().describe('why the filing could not be recorded (failed)'),
    attempted_by: z.string().optional(),
    failed_at: z.string().optional(),
  })
  .nullable()
  .openapi('ChecklistFiling');
const Checklist = z
  .object({
    checklist_id: z.string(),
    template_id: z.string(),
    title: z.string(),
    entity_id: z.string().nullable(),
    domain: z.string().nullable(),
    status: z
      .string()
      .describe('in_progress, in_review, exception_requested, approved, filing_failed, exception_granted or rejected'),
    pending_approval_id: z.string().nullable(),
    filing: ChecklistFiling,
    created_at: ts,
    updated_at: ts,
    items: z.array(Item),
  })
  .passthrough()
  .openapi('Checklist');
const Review = z
  .object({
    approval_id: z.string(),
    decision: z.string(),
    reviewer_id: z.string(),
    comments: z.string().nullable(),
    reviewed_at: z.string(),
  })
  .passthrough();
const Rejection = z.object({ reason: z.string(), rejected_by: z.string(), rejected_at: z.string() }).passthrough();
const ChecklistSummary = z
  .object({
    checklist_id: z.string(),
    template_id: z.string(),
    title: z.string(),
    status: z.string(),
    entity_type: z.string(),
    created_by: z.string().describe('Who started the checklist (filter with `created_by`)'),
    created_at: ts,
    review: Review.nullable().describe('The last review decision: why a checklist back in progress was returned'),
    rejection: Rejection.nullable(),
  })
  .passthrough()
  .openapi('ChecklistSummary');
const Artifact = z
  .object({
    artifact_id: z.string(),
    id: z.string(),
    item_index: z.number().int(),
    artifact_type: z.string(),
    filename: z.string(),
    content_type: z.string(),
    size_bytes: z.number(),
    sha256: z.string(),
    created_at: ts,
  })
  .passthrough()
  .openapi('ChecklistArtifact');
const Artifacts = z.object({ artifacts: z.array(Artifact), total: z.number().int() });
const WithApproval = z.object({ approval: z.unknown() }).passthrough();

export const checklistsApi: ApiDescription = {
  tag: 'checklists',
  public: () => [
    {
      method: 'get',
      path: '/checklists/templates',
      summary: 'Checklist templates',
      responses: { 200: z.object({}).passthrough() },
    },
    {
      method: 'get',
      path: '/checklists',
      summary: 'Checklists, filtered and paged',
      query: ListQuery,
      responses: { 200: z.object({ checklists: z.array(ChecklistSummary).max(200), total: z.number().int() }) },
    },
    {
      method: 'post',
      path: '/checklists',
      summary: 'Create a checklist from a template',
      body: CreateChecklistBody,
      responses: { 201: Checklist },
    },
    {
      method: 'get',
      path: '/checklists/:id',
      summary: 'One checklist with its items',
      params: IdParams,
      responses: { 200: Checklist },
    },
    {
      method: 'patch',
      path: '/checklists/:id',
      summary: 'Change a checklist',
      params: IdParams,
      body: UpdateChecklistBody,
      responses: { 200: Checklist },
    },
    {
      method: 'patch',
      path: '/checklists/:id/items/:idx',
      summary: 'Change one item',
      params: ItemParams,
      body: UpdateChecklistItemBody,
      responses: { 200: Item },
    },
    {
      method: 'post',
      path: '/checklists/:id/submit',
      summary: 'Submit for approval',
      params: IdParams,
      body: SubmitChecklistBody,
      responses: { 200: WithApproval },
    },
    {
      method: 'post',
      path: '/checklists/:id/exception',
      summary: 'Request an exception',
      params: IdParams,
      body: RequestExceptionBody,
      responses: { 200: WithApproval },
    },
    {
      method: 'post',
      path: '/checklists/:id/reject',
      summary: 'Reject a submitted checklist; 403 for its submitter (four eyes)',
      params: IdParams,
      body: RejectChecklistBody,
      responses: { 200: Checklist },
    },
    {
      method: 'post',
      path: '/checklists/:id/retry-filing',
      summary:
        'File a filing_failed checklist again once its cause is mended (administrators); 409 in any other status',
      params: IdParams,
      responses: { 200: Checklist },
    },
    {
      method: 'post',
      path: '/checklists/:id/items/:idx/artifacts',
      summary:
        'Attach an artifact to an item: JSON `{artifact_type, content, filename}` or a multipart `file` (`artifact_type` in the query)',
      params: ItemParams,
      query: ArtifactQuery,
      body: ArtifactJsonBody,
      // An artifact pasted whole: up to a million characters of text, escaped as JSON.
      bodyLimit: 4 * 1024 * 1024,
      alsoMultipart: true,
      responses: { 201: Artifact },
    },
    {
      method: 'get',
      path: '/checklists/:id/items/:idx/artifacts',
      summary: "An item's artifacts",
      params: ItemParams,
      responses: { 200: Artifacts },
    },
    {
      method: 'get',
      path: '/checklists/:id/artifacts',
      summary: 'Every artifact of a checklist',
      params: IdParams,
      responses: { 200: Artifacts },
    },
    {
      method: 'get',
      path: '/checklists/:id/artifacts/:aid/content',
      summary: "An artifact's stored bytes",
      params: ChecklistArtifactParams,
      responses: { 200: { contentType: '*/*', description: 'The artifact as stored' } },
    },
    {
      method: 'delete',
      path: '/checklists/:id/items/:idx/artifacts/:aid',
      summary: 'Remove an artifact',
      params: ArtifactParams,
      responses: { 200: z.object({ artifact_id: z.string(), status: z.literal('deleted') }) },
    },
    {
      method: 'get',
      path: '/workspaces/:checklist_id/stream',
      summary: "A checklist workspace's live assessment as server-sent events",
      params: WorkspaceParams,
      query: StreamQuery,
      responses: {
        200: {
          events: { frame: z.record(z.unknown()) },
          description: 'Named events per assessment step; data is one JSON object',
        },
        204: null,
      },
    },
  ],
};
