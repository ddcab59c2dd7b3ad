import { createHash } from 'node:crypto';
import JSZip from 'jszip';
import type { Knex } from 'knex';
import { findUserInTenant } from '../../../queries/identity/user-directory';
import type { FilingView } from '../../../queries/filings/filings';
import type { EventStore, RecordedEvent } from '../../platform/eventstore/types';
import { positionToString } from '../../platform/eventstore/types';
import { getBlob } from '../../platform/infra/artifact-blobs';
import { NotFound } from '../../platform/domain-errors';
import { approvalAggregate, readApprovalEvent } from '../../../streams/approvals/approval';
import { checklistAggregate, readChecklistEvent } from '../../../streams/checklists/checklist';
import { GAS_BALANCE_TOLERANCE_MCF } from '../../../streams/checklists/form-pr-checks';
import type { FormPrCheck } from '../../../streams/checklists/form-pr-checks';
import { FILING_TEMPLATES, loadWellFacts, type FilingPayload } from '../checklists';
import { type Anchor, Anchors, type EventRef, formPrAsOf, type VertexAsOf } from './as-of';
import { type FormPrDocument, renderFormPr } from './form-pr-pdf';
import type { EvidenceSigner } from './signing';

/**
 * A filed filing as the log records it: the checklist up to the review that filed it, the
 * approval (the payload the reviewer saw and the decision), and for Form PR the figures and
 * validations recomputed from the graph as the log stood when the approval was requested.
 * The evidence package and the Form PR document are both made from it (docs/filings.md).
 */
export const EVIDENCE_FORMAT = 'compliance-platform/filing-evidence';
export const EVIDENCE_VERSION = 1;
export const PDF_NAME = 'form-pr.pdf';

export interface FilingRecord {
  filing: FilingView;
  payload: Partial<FilingPayload> & Record<string, unknown>;
  requested: RecordedEvent;
  requestedBy: string;
  requestedAt: string;
  decided: {
    reviewerId: string;
    decision: string;
    comments: string | null;
    modifications: Record<string, unknown> | null;
    decidedAt: string;
  };
  filedEvent: RecordedEvent;
  items: Array<{ index: number; key: string; label: string; status: string; notes: string | null }>;
  artifacts: Array<{
    artifact_id: string;
    item_index: number;
    artifact_type: string;
    filename: string;
    content_type: string;
    size_bytes: number;
    sha256: string;
    source: string;
    added_by: string;
    added_at: string;
  }>;
  formPr: { figures: FilingPayload['figures']; validations: FormPrCheck[]; vertices: VertexAsOf[] } | null;
  anchors: Anchor[];
}

export async function filingRecord(
  deps: { knex: Knex; store: EventStore },
  tenantId: string,
  filing: FilingView,
): Promise<FilingRecord> {
  const anchors = new Anchors();
  const checklistEvents = await deps.store.readStream(checklistAggregate.stream(tenantId, filing.checklist_id));
  const filedAt = checklistEvents.findIndex(
    (e) => e.type === 'ChecklistReviewed' && (e.data as { approvalId: string }).approvalId === filing.approval_id,
  );
  if (filedAt < 0) throw new NotFound(`filing ${filing.filing_id} has no review on record`);
  const items: FilingRecord['items'] = [];
  const artifacts = new Map<string, FilingRecord['artifacts'][number]>();
  for (const recorded of checklistEvents.slice(0, filedAt + 1)) {
    const event = readChecklistEvent(recorded);
    if (event.type === 'ChecklistCreated')
      items.push(
        ...event.data.items.map((i) => ({
          index: i.index,
          key: i.key,
          label: i.label,
          status: 'not_started',
          notes: null,
        })),
      );
    if (event.type === 'ChecklistItemUpdated') {
      const item = items.find((i) => i.index === event.data.index);
      if (item && event.data.status) item.status = event.data.status;
      if (item && event.data.notes !== undefined) item.notes = event.data.notes;
    }
    if (event.type === 'ArtifactAdded') {
      const d = event.data;
      artifacts.set(d.artifactId, {
        artifact_id: d.artifactId,
        item_index: d.itemIndex,
        artifact_type: d.artifactType,
        filename: d.filename,
        content_type: d.contentType,
        size_bytes: d.sizeBytes,
        sha256: d.sha256,
        source: d.source,
        added_by: d.addedBy,
        added_at: d.addedAt,
      });
    }
    if (event.type === 'ArtifactRemoved') artifacts.delete(event.data.artifactId);
  }
  const filedEvent = checklistEvents[filedAt];
  anchors.add(filedEvent);
  const approvalEvents = await deps.store.readStream(approvalAggregate.stream(tenantId, filing.approval_id));
  const requested = approvalEvents.find((e) => e.type === 'ApprovalRequested');
  const decidedEvent = approvalEvents.find((e) => e.type === 'ApprovalDecided');
  if (!requested || !decidedEvent)
    throw new NotFound(`filing ${filing.filing_id}: its approval ${filing.approval_id} is not on record`);
  anchors.add(decidedEvent);
  const request = readApprovalEvent(requested);
  const decision = readApprovalEvent(decidedEvent);
  if (request.type !== 'ApprovalRequested' || decision.type !== 'ApprovalDecided')
    throw new Error('unreachable: approval events out of order');
  const payload = request.data.payload as FilingRecord['payload'];
  const formPr =
    filing.form === 'form_pr' && filing.period
      ? await formPrAsOf(
          deps,
          tenantId,
          { id: filing.entity.id, label: filing.entity.label },
          filing.period,
          requested.position,
          anchors,
        )
      : null;
  const { reviewerId, comments, modifications, decidedAt } = decision.data;
  return {
    filing,
    payload,
    requested,
    requestedBy: request.data.requestedBy,
    requestedAt: request.data.requestedAt,
    decided: { reviewerId, decision: decision.data.decision, comments, modifications, decidedAt },
    filedEvent,
    items,
    artifacts: [...artifacts.values()],
    formPr,
    anchors: anchors.list(),
  };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function personOf(knex: Knex, tenantId: string, userId: string) {
  const user = await findUserInTenant(knex, tenantId, userId);
  return { id: userId, email: user?.email ?? null, name: user?.display_name ?? null };
}

const KINDS: Record<string, string> = { gas_well: 'Gas well', oil_lease: 'Oil lease', oil_well: 'Oil well' };

/** The Form PR document's content: the figures as filed, identification from the unit as of the request. */
export async function formPrDocument(knex: Knex, tenantId: string, record: FilingRecord): Promise<FormPrDocument> {
  const { filing, payload, formPr } = record;
  const facts = await loadWellFacts(knex, tenantId, filing.entity.id, filing.entity.label);
  const unitVertex = formPr?.vertices[0];
  const p = unitVertex?.properties ?? facts?.well.properties ?? {};
  const isLease = unitVertex?.label === 'Lease';
  const kind = isLease ? 'oil_lease' : p.well_type === 'gas' ? 'gas_well' : 'oil_well';
  const reviewer = await personOf(knex, tenantId, record.decided.reviewerId);
  const lease = facts?.lease ?? null;
  return {
    filingId: filing.filing_id,
    operator: { name: p.operator ?? facts?.operator?.name ?? null, p5Number: facts?.operator?.p5_number ?? null },
    unit: {
      kind: KINDS[kind],
      id: isLease
        ? unitVertex!.entity_id
        : kind === 'gas_well'
          ? (p.gas_well_id ?? p.rrc_id ?? unitVertex?.entity_id ?? filing.entity.id)
          : (unitVertex?.entity_id ?? filing.entity.id),
      name: p.name ?? p.well_name ?? null,
      apiNumber: isLease ? null : (p.api_number ?? null),
    },
    field: p.field ?? facts?.field?.name ?? null,
    county: p.county ?? lease?.county ?? null,
    district: p.district ?? lease?.district ?? null,
    period: filing.period ?? '',
    figures: (payload.figures ?? []).map((f) => ({ label: f.label, value: f.value, unit: f.unit })),
    allocationMethod: isLease ? (p.allocation_method ?? null) : null,
    reviewer:
      reviewer.name && reviewer.email ? `${reviewer.name} <${reviewer.email}>` : (reviewer.email ?? reviewer.id),
    decidedAt: record.decided.decidedAt,
    decision: record.decided.decision,
  };
}

export interface EvidencePackage {
  manifest: Record<string, unknown>;
  manifestBytes: Buffer;
  jws: string;
  zip: Buffer;
}

const artifactPath = (a: FilingRecord['artifacts'][number]) =>
  `artifacts/${a.item_index}-${a.artifact_id}-${a.filename.replace(/[^\w.-]+/g, '_')}`;

/** The signed package: manifest.json, its detached JWS, the Form PR PDF and the checklist's artifacts. */
export async function buildEvidencePackage(
  knex: Knex,
  tenantId: string,
  record: FilingRecord,
  signer: EvidenceSigner,
  jwksUrl: string,
): Promise<EvidencePackage> {
  const { filing, payload, formPr } = record;
  const files: Array<{ path: string; bytes: Uint8Array; role: string }> = [];
  if (filing.form === 'form_pr')
    files.push({
      path: PDF_NAME,
      bytes: await renderFormPr(await formPrDocument(knex, tenantId, record)),
      role: 'form',
    });
  for (const a of record.artifacts) {
    const blob = await getBlob(knex, tenantId, a.sha256);
    if (!blob) throw new Error(`artifact ${a.artifact_id} (${a.sha256}) has no stored content`);
    files.push({ path: artifactPath(a), bytes: blob.content, role: 'artifact' });
  }
  const sources = (formPr?.vertices ?? []).map((v) => ({
    label: v.label,
    entity_id: v.entity_id,
    vertex_id: v.vertex_id,
    set_by: v.figures_set_by,
  }));
  const template = FILING_TEMPLATES.find((t) => t.templateId === filing.form);
  const manifest = {
    format: EVIDENCE_FORMAT,
    version: EVIDENCE_VERSION,
    filing_id: filing.filing_id,
    tenant_id: tenantId,
    entity: filing.entity,
    form: { id: filing.form, name: filing.form_name, title: template?.title ?? filing.form_name },
    period: filing.period,
    status: filing.status,
    filed_at: filing.filed_at,
    log_positions: {
      figures_as_of: positionToString(record.requested.position),
      filed: positionToString(record.filedEvent.position),
    },
    figures: (payload.figures ?? []).map((f) => ({
      label: f.label,
      value: f.value,
      unit: f.unit,
      source: {
        graph: f.source,
        vertices: sources as Array<{ label: string; entity_id: string; vertex_id: string; set_by: EventRef | null }>,
      },
    })),
    checklist: {
      checklist_id: filing.checklist_id,
      template_id: filing.form,
      items: record.items,
      artifacts: record.artifacts.map((a) => ({ ...a, path: artifactPath(a) })),
    },
    approval: {
      approval_id: filing.approval_id,
      summary: payload.summary ?? null,
      requested_by: await personOf(knex, tenantId, record.requestedBy),
      requested_at: record.requestedAt,
      reviewer: await personOf(knex, tenantId, record.decided.reviewerId),
      decision: record.decided.decision,
      comments: record.decided.comments,
      modifications: record.decided.modifications,
      decided_at: record.decided.decidedAt,
    },
    validations: {
      at_review: payload.validations ?? [],
      form_pr: formPr ? { tolerance: { gas_mcf: GAS_BALANCE_TOLERANCE_MCF }, checks: formPr.validations } : null,
    },
    files: files.map((f) => ({ path: f.path, role: f.role, size_bytes: f.bytes.length, sha256: sha256(f.bytes) })),
    audit_anchors: record.anchors,
    signature: { alg: 'EdDSA', kid: signer.kid, jwks_url: jwksUrl, file: 'manifest.jws', detached: true },
  };
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
  const jws = await signer.sign(manifestBytes);
  const zip = new JSZip();
  const date = new Date(record.decided.decidedAt);
  zip.file('manifest.json', manifestBytes, { date });
  zip.file('manifest.jws', `${jws}\n`, { date });
  for (const f of files) zip.file(f.path, f.bytes, { date });
  return {
    manifest,
    manifestBytes,
    jws,
    zip: await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', platform: 'UNIX' }),
  };
}
