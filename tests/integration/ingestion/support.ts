import type { HttpClient, HttpResponse } from '../../support/http';

/** Posts a CSV as the multipart `file` part, as an operator's browser would. */
export function postCsv(
  api: HttpClient,
  csv: string | Buffer,
  headers: Record<string, string>,
  filename = 'wells.csv',
): Promise<HttpResponse> {
  const form = new FormData();
  form.append('file', new Blob([typeof csv === 'string' ? csv : new Uint8Array(csv)], { type: 'text/csv' }), filename);
  return api.request('POST', '/ingest/operator/csv', { raw: form, headers });
}
