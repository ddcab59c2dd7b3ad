import { z, type ApiDescription } from '../../platform/openapi/describe';
import { DeadlinesQuery, EntityParams, FlaringQuery, MatrixQuery, SummaryQuery, TrendQuery } from './schemas';

/**
 * Compliance dashboards and assessment in the API contract. Query and path schemas
 * are the router's own; responses are open objects (a first pass, to be
 * tightened here by the context's owners).
 */
const Obj = z.object({}).passthrough();
const Chart = z.union([Obj, z.array(Obj)]);

export const complianceApi: ApiDescription = {
  tag: 'compliance',
  public: () => [
    {
      method: 'get',
      path: '/compliance/summary',
      summary: 'Compliance summary as of a date (dashboards.read)',
      query: SummaryQuery,
      responses: { 200: Obj },
    },
    {
      method: 'get',
      path: '/compliance/matrix',
      summary: 'Entity × domain compliance matrix',
      query: MatrixQuery,
      responses: { 200: Chart },
    },
    {
      method: 'get',
      path: '/compliance/entities/:entity_id',
      summary:
        "One entity's verdicts: each domain's color, reason, due date and facts, open anomalies and the past verdicts",
      params: EntityParams,
      responses: {
        200: z
          .object({
            entity_id: z.string(),
            entity_type: z.string(),
            entity_name: z.string(),
            cells: z.array(
              z.object({
                domain: z.string(),
                color: z.string(),
                bucket: z.string().nullable(),
                due_date: z.string().nullable(),
                anomaly: z.boolean(),
                reason: z.string(),
                facts: Obj,
              }),
            ),
            anomalies: z.array(Obj).max(10),
            history: z.array(Obj).max(50),
          })
          .passthrough(),
      },
      errors: [404],
    },
    {
      method: 'get',
      path: '/compliance/domains',
      summary: 'The installed compliance domains',
      responses: { 200: Chart },
    },
    {
      method: 'get',
      path: '/compliance/charts/deadlines',
      summary: 'Upcoming deadlines per week',
      query: DeadlinesQuery,
      responses: { 200: Chart },
    },
    {
      method: 'get',
      path: '/compliance/charts/trend',
      summary: 'Compliance trend per day',
      query: TrendQuery,
      responses: { 200: Chart },
    },
    { method: 'get', path: '/compliance/charts/filings', summary: 'Filings by status', responses: { 200: Chart } },
    {
      method: 'get',
      path: '/compliance/charts/flaring',
      summary: 'Flaring volumes per month',
      query: FlaringQuery,
      responses: { 200: Chart },
    },
    {
      method: 'post',
      path: '/compliance/assess',
      summary: 'Assess every entity now (compliance.assess)',
      responses: { 200: Chart },
    },
    {
      method: 'post',
      path: '/compliance/assess/:entity_id',
      summary: 'Assess one entity now (compliance.assess)',
      params: EntityParams,
      responses: { 200: Chart },
    },
  ],
};
