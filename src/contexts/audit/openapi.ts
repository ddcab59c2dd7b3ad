import { z, type ApiDescription } from '../../platform/openapi/describe';
import { EventsQuery, ExportQuery } from './schemas';

/**
 * Audit review in the API contract. Query schemas are the router's own; the entry
 * shape is an open object (to be tightened here).
 */
const Entry = z.object({}).passthrough().openapi('AuditEntry');

export const auditApi: ApiDescription = {
  tag: 'audit',
  public: () => [
    {
      method: 'get',
      path: '/admin/audit/events',
      summary: "The tenant's audit trail, filtered and paged by cursor (audit.read)",
      query: EventsQuery,
      responses: { 200: z.object({ events: z.array(Entry), next_cursor: z.string().nullable() }) },
    },
    {
      method: 'get',
      path: '/admin/audit/export',
      summary:
        'Export the filtered trail as xlsx (default), csv or json; the export itself is audited (X-Audit-Export-Id)',
      query: ExportQuery,
      responses: {
        200: {
          contentType: '*/*',
          description:
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, text/csv or application/json, as an attachment',
        },
      },
    },
  ],
};
