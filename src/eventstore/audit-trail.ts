import { AuditSigner, TamperedEntry, VerifyReport } from './audit-signature';
import { EventStore, Position, RecordedEvent, START } from './types';

/**
 * Walks the whole log once and re-checks every stream's signature chain (`ops audit
 * verify`). Only the last signature per stream is kept in memory.
 */
export async function verifyAuditTrail(
  store: EventStore,
  signer: AuditSigner,
  options: { streamPrefix?: string; onProgress?: (checked: number) => void } = {},
): Promise<VerifyReport> {
  const chains = new Map<string, { previous: string; next: bigint }>();
  const tampered: TamperedEntry[] = [];
  let total = 0;
  let from: Position = START;
  for (;;) {
    const batch = await store.readAll({ from, limit: 1000 });
    if (batch.length === 0) break;
    for (const event of batch) {
      if (options.streamPrefix && !event.stream.startsWith(options.streamPrefix)) continue;
      total++;
      const chain = chains.get(event.stream) ?? { previous: '', next: 0n };
      const entry = { stream: event.stream, revision: event.revision.toString(), eventId: event.id, type: event.type };
      if (event.revision !== chain.next) tampered.push({ ...entry, reason: 'revision_gap' });
      else if (!signer.matches(event, chain.previous || null)) tampered.push({ ...entry, reason: 'signature_mismatch' });
      chains.set(event.stream, { previous: String(event.metadata.signature ?? ''), next: event.revision + 1n });
    }
    from = batch[batch.length - 1].position;
    options.onProgress?.(total);
  }
  return { streams: chains.size, total, verified: total - tampered.length, tampered };
}

function summarise(data: unknown, width = 100): string {
  const text = JSON.stringify(data) ?? '';
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/** A stream's history as a readable timeline, one line per event (`ops audit replay`). */
export function formatTimeline(events: RecordedEvent[], signer?: AuditSigner): string {
  if (events.length === 0) return '(no events)';
  const lines: string[] = [];
  let previous: string | null = null;
  for (const event of events) {
    const ok = signer ? (signer.matches(event, previous) ? 'signed' : 'TAMPERED') : '';
    previous = String(event.metadata.signature ?? '');
    lines.push(
      [
        `#${event.revision.toString().padStart(4)}`,
        event.recordedAt.toISOString(),
        event.type.padEnd(28),
        `by ${event.metadata.actorId}`,
        // The audit action a command named (e.g. platform_settings.update), when it named one.
        typeof event.metadata.action === 'string' ? `action=${event.metadata.action}` : '',
        ok,
        summarise(event.data),
      ]
        .filter(Boolean)
        .join('  '),
    );
  }
  return lines.join('\n');
}
