import type { PlatformDeps } from '../../src/context-module';
import { AuditSigner, verifyStreamChain } from '../../src/eventstore/audit-signature';
import { auditedStreams } from './audit-log';

export interface PromptAuditVerification {
  total_entries: number;
  verified: number;
  tampered: number;
  tampered_entries: Array<{ event_id: string; stream: string; revision: number; type: string; reason: string }>;
}

/**
 * POST /prompts/audit/verify: recomputes the HMAC chain of the template's stream (or of every
 * prompt stream of the tenant) from the stored events, and on the Postgres store compares
 * the last stored revision with the `streams` head, so a removed tail counts as tampering.
 */
export async function verifyPromptAudit(deps: Pick<PlatformDeps, 'knex' | 'store' | 'config'>, tenantId: string, templateId?: string): Promise<PromptAuditVerification> {
  const signer = new AuditSigner(deps.config.auditSigningKey);
  const report: PromptAuditVerification = { total_entries: 0, verified: 0, tampered: 0, tampered_entries: [] };
  for (const stream of await auditedStreams(deps.knex, tenantId, templateId)) {
    const events = await deps.store.readStream(stream);
    const tampered = verifyStreamChain(signer, events);
    report.total_entries += events.length;
    for (const t of tampered) report.tampered_entries.push({ event_id: t.eventId, stream: t.stream, revision: Number(t.revision), type: t.type, reason: t.reason });
    if (deps.config.eventStore.kind === 'postgres') {
      const head = await deps.knex('streams').select('revision').where({ stream_id: stream }).first();
      const last = events.length > 0 ? Number(events[events.length - 1].revision) : -1;
      // Each revision the head promises but the log no longer holds is one tampered entry.
      for (let revision = last + 1; head && revision <= Number(head.revision); revision++) {
        report.tampered_entries.push({ event_id: '', stream, revision, type: '(removed)', reason: 'missing_tail' });
        report.total_entries++;
      }
    }
  }
  report.tampered = report.tampered_entries.length;
  report.verified = report.total_entries - report.tampered;
  return report;
}
