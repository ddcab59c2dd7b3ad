import { api, qs } from './api';
import { ErrorText, useLoad, When } from './ui';

/** A filing as `GET /api/v1/filings` lists it (docs/filings.md). */
export interface FilingSummary {
  filing_id: string;
  form: string;
  form_name: string;
  period: string | null;
  status: string;
  filed_at: string | null;
  reviewer: { id: string; email: string | null; name: string | null } | null;
  entity: { id: string; label: string; name: string | null };
}

/**
 * The filings of an entity or of an approval, each filed one with its Form PR document and its
 * signed evidence package (plain links: the session cookie authorizes the download).
 */
export function Filings({ entityId, approvalId }: { entityId?: string; approvalId?: string }) {
  const { data, error } = useLoad(
    () =>
      api.get<{ filings: FilingSummary[]; total: number }>(
        `/filings${qs({ entity_id: entityId, approval_id: approvalId, limit: 20 })}`,
      ),
    [entityId, approvalId],
  );
  if (!data && !error) return null;
  if (data && data.filings.length === 0) return null;
  return (
    <section aria-labelledby="filings-title">
      <h2 id="filings-title">Filings</h2>
      <ErrorText error={error} />
      <ul className="filings">
        {data?.filings.map((f) => {
          const base = `/api/v1/filings/${encodeURIComponent(f.filing_id)}`;
          return (
            <li key={f.filing_id} data-filing={f.filing_id}>
              <strong>{f.form_name === 'PR' ? 'Form PR' : f.form_name}</strong> {f.period ?? ''} ·{' '}
              {f.status.replace(/_/g, ' ')}
              {f.filed_at && (
                <>
                  {' '}
                  on <When at={f.filed_at} />
                  {f.reviewer && <>, approved by {f.reviewer.name ?? f.reviewer.email ?? f.reviewer.id}</>}
                </>
              )}
              {f.status === 'filed' && (
                <span className="filing-links">
                  {f.form === 'form_pr' && (
                    <>
                      {' '}
                      <a href={`${base}/form.pdf`} target="_blank" rel="noopener">
                        Form PR (PDF)
                      </a>
                    </>
                  )}{' '}
                  <a href={`${base}/evidence`} download>
                    Download evidence
                  </a>
                </span>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
