import type { PlatformDeps } from '../../src/platform/context-module';
import { AuditSigner, verifyStreamChain } from '../../src/platform/eventstore/audit-signature';
import { auditedStreams } from './audit-log';

export interface PromptAuditVerification {
  total_entries: number;
  verified: number;
  tampered: number;
  tampered_entries: Array<{ event_id: string; stream: string; revision: number | null; type: string; reason: string }>;
}

/**
 * POST /prompts/audit/verify: recomputes the HMAC chain of the template's stream (or of every
 * prompt stream of the tenant) from the stored events. On the PostgreSQL store each stream
 * must also end at the head its `streams` row records (revision and signature), as in
 * `ops audit verify`: a removed tail is `head_mismatch`, a removed head row
 * `headless_stream`. `total_entries` counts the entries the log should hold.
 */
export async function verifyPromptAudit(
  deps: Pick<PlatformDeps, 'knex' | 'store' | 'config'>,
  tenantId: string,
  templateId?: string,
): Promise<PromptAuditVerification> {
  const signer = new AuditSigner(deps.config.auditSigningKey);
  const report: PromptAuditVerification = { total_entries: 0, verified: 0, tampered: 0, tampered_entries: [] };
  for (const stream of await auditedStreams(deps.knex, tenantId, templateId)) {
    const events = await deps.store.readStream(stream);
    const broken = verifyStreamChain(signer, events);
    let expected = events.length;
    for (const t of broken)
      report.tampered_entries.push({
        event_id: t.eventId,
        stream: t.stream,
        revision: Number(t.revision),
        type: t.type,
        reason: t.reason,
      });
    report.verified += events.length - broken.length;
    if (deps.config.eventStore.kind === 'postgres') {
      const head = await deps.knex('streams').select('revision', 'last_signature').where({ stream_id: stream }).first();
      const last = events[events.length - 1];
      if (!head) {
        report.tampered_entries.push({
          event_id: '',
          stream,
          revision: null,
          type: '(stream without head)',
          reason: 'headless_stream',
        });
      } else {
        expected = Math.max(expected, Number(head.revision) + 1);
        const lastSignature = last ? String(last.metadata.signature ?? '') : null;
        if (
          !last ||
          Number(last.revision) !== Number(head.revision) ||
          (head.last_signature !== null && lastSignature !== head.last_signature)
        ) {
          report.tampered_entries.push({
            event_id: last?.id ?? '',
            stream,
            revision: Number(head.revision),
            type: last?.type ?? '(missing)',
            reason: 'head_mismatch',
          });
        }
      }
    }
    report.total_entries += expected;
  }
  report.tampered = report.tampered_entries.length;
  return report;
}
