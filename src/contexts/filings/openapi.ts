import { z, type ApiDescription, type RouteDescription } from '../../platform/openapi/describe';
import { FilingListQuery, FilingParams } from './schemas';

const Entity = z.object({
  id: z.string(),
  label: z.string(),
  vertex_id: z.string().nullable(),
  name: z.string().nullable(),
  api_number: z.string().nullable(),
  lease_id: z.string().nullable(),
});
const Filing = z
  .object({
    filing_id: z.string(),
    entity: Entity,
    form: z.string(),
    form_name: z.string(),
    period: z.string().nullable(),
    status: z.string(),
    filed_at: z.string().nullable(),
    approval_id: z.string(),
    checklist_id: z.string(),
    submitted_by: z.string(),
    submitted_at: z.string().nullable(),
    reviewer_id: z.string().nullable(),
    reviewer: z.object({ id: z.string(), email: z.string().nullable(), name: z.string().nullable() }).nullable(),
    decision: z.string().nullable(),
    review_comments: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .openapi('Filing');
const Binary = z.string().openapi({ format: 'binary' });
const Jwk = z.object({
  kty: z.string(),
  crv: z.string(),
  x: z.string(),
  kid: z.string(),
  alg: z.string(),
  use: z.string(),
});

const routes = (): RouteDescription[] => [
  {
    method: 'get',
    path: '/filings',
    summary: 'Filings, filtered and paged (newest activity first)',
    query: FilingListQuery,
    responses: { 200: z.object({ filings: z.array(Filing).max(200), total: z.number().int() }) },
  },
  {
    method: 'get',
    path: '/filings/:id',
    summary: 'One filing; another tenant’s is 404',
    params: FilingParams,
    responses: { 200: Filing },
  },
  {
    method: 'get',
    path: '/filings/:id/form.pdf',
    summary: 'The filed Form PR as a PDF',
    description: '409 while the filing is not `filed`; 404 for a filing of another form.',
    params: FilingParams,
    responses: { 200: { contentType: 'application/pdf', schema: Binary, description: 'PDF document' } },
    errors: [409],
  },
  {
    method: 'get',
    path: '/filings/:id/evidence',
    summary: 'The signed evidence package (zip: manifest.json, manifest.jws, form-pr.pdf, artifacts)',
    description:
      'manifest.jws is a detached JWS (EdDSA, Ed25519) of the exact bytes of manifest.json; verify with the keys at /.well-known/jwks.json. 409 while the filing is not `filed`.',
    params: FilingParams,
    responses: { 200: { contentType: 'application/zip', schema: Binary, description: 'zip archive' } },
    errors: [409],
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    root: true,
    auth: 'public',
    summary: 'Public keys that verify evidence packages (JWKS; retired keys stay listed)',
    responses: { 200: z.object({ keys: z.array(Jwk).max(1000) }) },
  },
];

export const filingsApi: ApiDescription = { tag: 'filings', public: routes };
