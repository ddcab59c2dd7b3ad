import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * One export of the audit trail (who exported what): appended before the export streams,
 * so an export that is cut short is on record too. The filters are the reviewer's own
 * words (`user=ann@example.com`, `from=2026-03-01`), never stream names.
 */
export const AUDIT_EXPORT_FORMATS = ['table', 'json', 'csv', 'xlsx'] as const;

export const AuditExportEventSchemas = {
  AuditTrailExported: z.object({
    exportId: z.string(),
    format: z.enum(AUDIT_EXPORT_FORMATS),
    filters: z.record(z.string()),
    via: z.enum(['cli', 'http']),
    at: z.string(),
  }),
};

export type AuditExportEvent = EventsOf<typeof AuditExportEventSchemas>;
export type AuditExportState = { status: 'none' } | { status: 'exported'; format: string; at: string };

export function evolveAuditExport(_state: AuditExportState, event: AuditExportEvent): AuditExportState {
  switch (event.type) {
    case 'AuditTrailExported':
      return { status: 'exported', format: event.data.format, at: event.data.at };
  }
}

export const auditExportAggregate: Aggregate<AuditExportState, AuditExportEvent> = {
  stream: (tenantId, id) => `audit.export-${tenantId}-${id}`,
  eventTypes: Object.keys(AuditExportEventSchemas) as AuditExportEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveAuditExport,
  read: eventReader('audit export', AuditExportEventSchemas),
};
