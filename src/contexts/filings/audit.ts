import { evidenceKeysAggregate } from '../../../streams/filings/evidence-keys';
import { type AuditCatalog } from '../../platform/audit/catalog';

/** The evidence keys' publication history: which key signs packages since when. Filings themselves are the checklists' events. */
export const filingsAuditCatalog: AuditCatalog = {
  aggregates: [
    {
      kind: 'evidence-keys',
      aggregate: evidenceKeysAggregate,
      describe: (event) =>
        event.type === 'EvidenceKeyPublished'
          ? `evidence signing key ${(event.data as { kid: string }).kid} published`
          : undefined,
    },
  ],
};
