import type { CommandContext, CommandHandler } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { newId } from '../../src/platform/command-handling/idempotency';
import { type AuditExportEvent, type AuditExportState, auditExportAggregate } from '../../streams/audit/audit-export';

export type RecordAuditExport = {
  type: 'RecordAuditExport';
  exportId: string;
  format: 'table' | 'json' | 'csv' | 'xlsx';
  filters: Record<string, string>;
  via: 'cli' | 'http';
};

/** An export is recorded once; a retried request with the same Idempotency-Key appends nothing. */
export function decideRecordAuditExport(
  command: RecordAuditExport,
  state: AuditExportState,
  now: Date,
): AuditExportEvent[] {
  switch (command.type) {
    case 'RecordAuditExport':
      if (state.status !== 'none') return [];
      return [
        {
          type: 'AuditTrailExported',
          data: {
            exportId: command.exportId,
            format: command.format,
            filters: command.filters,
            via: command.via,
            at: now.toISOString(),
          },
        },
      ];
    default:
      return assertNever(command.type);
  }
}

export const recordAuditExportDecider: Decider<RecordAuditExport, AuditExportState, AuditExportEvent> = {
  ...auditExportAggregate,
  decide: decideRecordAuditExport,
};

/** Records who exported what before the export streams; returns the export id. */
export async function recordAuditExport(
  deps: { handle: CommandHandler },
  context: CommandContext,
  input: Omit<RecordAuditExport, 'type' | 'exportId'>,
): Promise<string> {
  const exportId = newId(context, 'audit.export');
  await deps.handle(
    recordAuditExportDecider,
    auditExportAggregate.stream(context.tenantId, exportId),
    { type: 'RecordAuditExport', exportId, ...input },
    context,
  );
  return exportId;
}
