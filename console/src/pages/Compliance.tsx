import { useState } from 'react';
import { api, qs } from '../api';
import { Link } from '../router';
import { ErrorText, Loading, Page, useLoad } from '../ui';
import { Pager } from './Approvals';

interface Summary {
  overdue_count: number;
  overdue_delta: number | null;
  due_7_days_count: number;
  due_7_days_delta: number | null;
  due_30_days_count: number;
  due_30_days_delta: number | null;
  anomaly_count: number;
  anomaly_delta: number | null;
}
interface Domain {
  domain: string;
  title: string;
  short_title: string;
}
interface MatrixRow {
  entity_id: string;
  entity_name: string;
  entity_type: string;
  domains: Record<string, string>;
}
interface TrendPoint {
  date: string;
  overdue_count: number;
  due_7_days_count: number;
  due_30_days_count: number;
  anomaly_count: number;
}

const BUCKETS = [
  { value: 'overdue', label: 'Overdue', key: 'overdue' },
  { value: 'due_7d', label: 'Due in 7 days', key: 'due_7_days' },
  { value: 'due_30d', label: 'Due in 30 days', key: 'due_30_days' },
  { value: 'anomalies', label: 'Anomalies', key: 'anomaly' },
] as const;
const STATUSES = [
  { value: 'overdue', label: 'Overdue' },
  { value: 'action_needed', label: 'Action needed' },
  { value: 'in_review', label: 'In review' },
  { value: 'compliant', label: 'Compliant' },
];
const COLOR_MEANING: Record<string, string> = { green: 'compliant', amber: 'attention needed', red: 'violation', grey: 'unknown', blue: 'in progress' };

export function CompliancePage() {
  const [asOf, setAsOf] = useState('');
  // The start page links here with `?bucket=overdue` or `?bucket=due_7d`.
  const [bucket, setBucket] = useState(() => new URLSearchParams(location.search).get('bucket') ?? '');
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const pageSize = 25;
  const as_of = asOf ? `${asOf}T23:59:59Z` : undefined;
  const summary = useLoad(() => api.get<Summary>(`/compliance/summary${qs({ as_of })}`), [as_of]);
  const domains = useLoad(() => api.get<Domain[]>('/compliance/domains'), []);
  const matrix = useLoad(
    () => api.get<{ rows: MatrixRow[]; total: number }>(`/compliance/matrix${qs({ as_of, bucket, status, search: search.trim(), page, page_size: pageSize })}`),
    [as_of, bucket, status, search, page],
  );
  const trend = useLoad(() => api.get<{ points: TrendPoint[] }>('/compliance/charts/trend?days=30'), []);
  const reset = () => setPage(1);

  return (
    <Page
      title="Compliance"
      actions={
        <label className="inline-field">
          As of
          <input type="date" value={asOf} max={new Date().toISOString().slice(0, 10)} onChange={(e) => { setAsOf(e.target.value); reset(); }} />
        </label>
      }
    >
      <ErrorText error={summary.error} />
      <div className="cards" role="list" aria-label="Summary">
        {BUCKETS.map((b) => {
          const count = summary.data?.[`${b.key}_count` as keyof Summary];
          const delta = summary.data?.[`${b.key}_delta` as keyof Summary];
          return (
            // A toggle button inside a list item: a button with role="listitem" could not be pressed (axe: aria-allowed-attr).
            <div role="listitem" key={b.value}>
              <button
                type="button"
                className={`summary-card ${bucket === b.value ? 'active' : ''} bucket-${b.value}`}
                aria-pressed={bucket === b.value}
                onClick={() => { setBucket(bucket === b.value ? '' : b.value); reset(); }}
              >
                <span className="label">{b.label}</span>
                <span className="count">{count ?? '…'}</span>
                <span className="delta">{delta == null ? 'no change data' : `${delta > 0 ? '+' : ''}${delta} this week`}</span>
              </button>
            </div>
          );
        })}
      </div>
      {trend.data && trend.data.points.length > 0 && (
        <BarChart title="Overdue over the last 30 days" points={trend.data.points.map((p) => ({ label: p.date.slice(5), value: p.overdue_count }))} />
      )}
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the matrix">
        <label>
          Bucket
          <select value={bucket} onChange={(e) => { setBucket(e.target.value); reset(); }}>
            <option value="">Any</option>
            {BUCKETS.map((b) => (
              <option key={b.value} value={b.value}>
                {b.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => { setStatus(e.target.value); reset(); }}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search
          <input type="search" value={search} placeholder="Well name or API number" onChange={(e) => { setSearch(e.target.value); reset(); }} />
        </label>
      </form>
      <ErrorText error={matrix.error ?? domains.error} />
      <p className="legend" aria-label="Legend">
        {Object.entries(COLOR_MEANING).map(([c, m]) => (
          <span key={c} className="legend-item">
            <span className={`cell cell-${c}`} aria-hidden="true" /> {m}
          </span>
        ))}
      </p>
      {matrix.loading && !matrix.data ? (
        <Loading what="the matrix" />
      ) : matrix.data && domains.data ? (
        <>
          <div className="table-wrap">
            <table className="matrix">
              <caption className="sr-only">Compliance matrix: entities by domain</caption>
              <thead>
                <tr>
                  <th scope="col">Entity</th>
                  <th scope="col">Type</th>
                  {domains.data.map((d) => (
                    <th key={d.domain} scope="col" title={d.title}>
                      {d.short_title}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {matrix.data.rows.map((r) => (
                  <tr key={r.entity_id}>
                    <th scope="row">
                      <Link to={`/graph/${r.entity_type}/${encodeURIComponent(r.entity_id)}`}>{r.entity_name}</Link>
                      <span className="muted small block">{r.entity_id}</span>
                    </th>
                    <td>{r.entity_type}</td>
                    {domains.data!.map((d) => {
                      const color = r.domains[d.domain] ?? 'grey';
                      return (
                        <td key={d.domain} className={`cell-td`}>
                          <span className={`cell cell-${color}`} title={`${d.title}: ${COLOR_MEANING[color] ?? color}`}>
                            <span className="sr-only">{COLOR_MEANING[color] ?? color}</span>
                          </span>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {matrix.data.rows.length === 0 && <p className="muted">No entities match.</p>}
          <Pager offset={(page - 1) * pageSize} limit={pageSize} total={matrix.data.total} onChange={(o) => setPage(o / pageSize + 1)} />
        </>
      ) : null}
    </Page>
  );
}

/** A small accessible SVG bar chart (the values are also in a visually hidden table). */
export function BarChart({ title, points }: { title: string; points: Array<{ label: string; value: number }> }) {
  const max = Math.max(1, ...points.map((p) => p.value));
  const w = 600;
  const h = 120;
  const bw = Math.min(w / Math.max(points.length, 1), 48);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${w} ${h + 16}`} role="img" aria-label={`${title}: ${points.map((p) => `${p.label} ${p.value}`).join(', ')}`}>
        {points.map((p, i) => {
          const bh = (p.value / max) * h;
          return (
            <g key={i}>
              <rect x={i * bw + 2} y={h - bh} width={Math.max(bw - 4, 1)} height={bh} className="bar">
                <title>{`${p.label}: ${p.value}`}</title>
              </rect>
              {points.length <= 16 && (
                <text x={i * bw + bw / 2} y={h + 12} textAnchor="middle" className="axis">
                  {p.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
