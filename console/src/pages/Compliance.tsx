import { Fragment, useState } from 'react';
import { api, qs } from '../api';
import { Link } from '../router';
import { ErrorText, formatDay, Loading, Page, useLoad } from '../ui';
import { Pager } from './Approvals';
import { VERDICT_MEANING, VerdictDetail, type EntityVerdicts } from './Graph';

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
  applies_to?: string[];
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
const COLOR_MEANING = VERDICT_MEANING;
const SORTS = [
  { value: 'status', label: 'Most severe first, then soonest due' },
  { value: 'due_date', label: 'Soonest due first' },
  { value: 'entity_name', label: 'Name (A–Z)' },
  { value: 'entity_type', label: 'Type, then name' },
];
/** A cell's mark besides its color, so the meaning survives without color (and in print). */
const CELL_MARK: Record<string, string> = { red: '!', amber: '▲', blue: '…', green: '✓', grey: '?', na: '' };

export function CompliancePage() {
  const [asOf, setAsOf] = useState('');
  // The start page links here with `?bucket=overdue` or `?bucket=due_7d`.
  const [bucket, setBucket] = useState(() => new URLSearchParams(location.search).get('bucket') ?? '');
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState('status');
  const [open, setOpen] = useState<{ entity: string; domain: string } | null>(null);
  const [page, setPage] = useState(1);
  const pageSize = 25;
  const as_of = asOf ? `${asOf}T23:59:59Z` : undefined;
  const summary = useLoad(() => api.get<Summary>(`/compliance/summary${qs({ as_of })}`), [as_of]);
  const domains = useLoad(() => api.get<Domain[]>('/compliance/domains'), []);
  const matrix = useLoad(
    () =>
      api.get<{ rows: MatrixRow[]; total: number }>(
        `/compliance/matrix${qs({ as_of, bucket, status, search: search.trim(), sort_by: sort, page, page_size: pageSize })}`,
      ),
    [as_of, bucket, status, search, sort, page],
  );
  const trend = useLoad(() => api.get<{ points: TrendPoint[] }>('/compliance/charts/trend?days=30'), []);
  const reset = () => {
    setPage(1);
    setOpen(null);
  };

  return (
    <Page
      title="Compliance"
      actions={
        <label className="inline-field">
          As of
          <input
            type="date"
            value={asOf}
            max={new Date().toISOString().slice(0, 10)}
            onChange={(e) => {
              setAsOf(e.target.value);
              reset();
            }}
          />
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
                onClick={() => {
                  setBucket(bucket === b.value ? '' : b.value);
                  reset();
                }}
              >
                <span className="label">{b.label}</span>
                <span className="count">{count ?? '…'}</span>
                <span className="delta">
                  {delta == null ? 'no change data' : `${delta > 0 ? '+' : ''}${delta} this week`}
                </span>
              </button>
            </div>
          );
        })}
      </div>
      {trend.data && trend.data.points.length > 1 && (
        <BarChart
          title="Entities overdue, each day of the last 30 days"
          yLabel="Entities overdue"
          xLabel="Day"
          points={trend.data.points.map((p) => ({
            label: formatDay(p.date.slice(0, 10)),
            value: p.overdue_count,
            detail: `${p.due_7_days_count} due in 7 days, ${p.due_30_days_count} in 30`,
          }))}
        />
      )}
      {trend.data && trend.data.points.length === 1 && (
        <p className="muted small">
          The daily history starts on {formatDay(trend.data.points[0].date.slice(0, 10))}: a chart appears once there
          are two days to compare.
        </p>
      )}
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the matrix">
        <label>
          Bucket
          <select
            value={bucket}
            onChange={(e) => {
              setBucket(e.target.value);
              reset();
            }}
          >
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
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value);
              reset();
            }}
          >
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
          <input
            type="search"
            value={search}
            placeholder="Well name or API number"
            onChange={(e) => {
              setSearch(e.target.value);
              reset();
            }}
          />
        </label>
        <label>
          Sort
          <select
            value={sort}
            onChange={(e) => {
              setSort(e.target.value);
              reset();
            }}
          >
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorText error={matrix.error ?? domains.error} />
      <p className="legend" aria-label="Legend">
        {Object.entries(COLOR_MEANING).map(([c, m]) => (
          <span key={c} className="legend-item">
            <span className={`cell cell-${c}`} aria-hidden="true">
              {CELL_MARK[c]}
            </span>{' '}
            {m}
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
                {matrix.data.rows.map((r) => {
                  const expanded = open?.entity === r.entity_id ? open.domain : null;
                  return (
                    <Fragment key={r.entity_id}>
                      <tr>
                        <th scope="row">
                          <Link to={`/graph/${encodeURIComponent(r.entity_type)}/${encodeURIComponent(r.entity_id)}`}>
                            {r.entity_name}
                          </Link>
                          <span className="muted small block">{r.entity_id}</span>
                        </th>
                        <td>{r.entity_type}</td>
                        {domains.data!.map((d) => {
                          // A domain that does not apply to this kind of entity is not "unknown": it is drawn empty, and is not a button.
                          const applies = !d.applies_to || d.applies_to.includes(r.entity_type);
                          const color = applies ? (r.domains[d.domain] ?? 'grey') : 'na';
                          const meaning = COLOR_MEANING[color] ?? color;
                          if (!applies)
                            return (
                              <td key={d.domain} className="cell-td">
                                <span
                                  className="cell cell-na"
                                  title={`${d.title}: does not apply to a ${r.entity_type.toLowerCase()}`}
                                >
                                  <span className="sr-only">does not apply</span>
                                </span>
                              </td>
                            );
                          const isOpen = expanded === d.domain;
                          return (
                            <td key={d.domain} className="cell-td">
                              <button
                                type="button"
                                className={`cell cell-${color} cell-button`}
                                aria-expanded={isOpen}
                                aria-controls={isOpen ? `verdict-${r.entity_id}` : undefined}
                                aria-label={`${d.short_title} of ${r.entity_name}: ${meaning}`}
                                title={`${d.title}: ${meaning} (open the verdict)`}
                                onClick={() => setOpen(isOpen ? null : { entity: r.entity_id, domain: d.domain })}
                              >
                                <span aria-hidden="true">{CELL_MARK[color]}</span>
                              </button>
                            </td>
                          );
                        })}
                      </tr>
                      {expanded && (
                        <tr className="verdict-row">
                          <td colSpan={2 + domains.data!.length} id={`verdict-${r.entity_id}`}>
                            <CellVerdict
                              entityId={r.entity_id}
                              label={r.entity_type}
                              domain={domains.data!.find((d) => d.domain === expanded)!}
                              onClose={() => setOpen(null)}
                            />
                          </td>
                        </tr>
                      )}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </div>
          {matrix.data.rows.length === 0 && <p className="muted">No entities match.</p>}
          <Pager
            offset={(page - 1) * pageSize}
            limit={pageSize}
            total={matrix.data.total}
            onChange={(o) => setPage(o / pageSize + 1)}
          />
        </>
      ) : null}
    </Page>
  );
}

const verdicts = new Map<string, Promise<EntityVerdicts>>();

/** The verdict behind one matrix cell, opened in place under its row (the entity's verdicts are fetched once). */
function CellVerdict({
  entityId,
  label,
  domain,
  onClose,
}: {
  entityId: string;
  label: string;
  domain: Domain;
  onClose: () => void;
}) {
  const data = useLoad(() => {
    if (!verdicts.has(entityId))
      verdicts.set(
        entityId,
        api.get<EntityVerdicts>(`/compliance/entities/${encodeURIComponent(entityId)}`).catch((e) => {
          verdicts.delete(entityId);
          throw e;
        }),
      );
    return verdicts.get(entityId)!;
  }, [entityId]);
  const templates = useLoad(
    () =>
      api.get<{ templates: Array<{ template_id: string; title: string; domain: string; entity_types?: string[] }> }>(
        '/checklists/templates',
      ),
    [],
  );
  const cell = data.data?.cells.find((c) => c.domain === domain.domain);
  return (
    <div className="cell-verdict" role="region" aria-label={`${domain.title} verdict`}>
      <ErrorText error={data.error} />
      {data.loading && !data.data && <Loading what="the verdict" />}
      {data.data && !cell && (
        <p>No verdict yet for {domain.title}: the entity has not been assessed in this domain (unknown).</p>
      )}
      {cell && (
        <VerdictDetail
          cell={cell}
          domain={domain}
          label={label}
          id={entityId}
          templates={templates.data?.templates ?? []}
        />
      )}
      <p className="row">
        <Link to={`/graph/${encodeURIComponent(label)}/${encodeURIComponent(entityId)}`}>Open the entity page</Link>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </p>
    </div>
  );
}

/**
 * An accessible SVG bar chart with a y axis (zero, half and the maximum), x labels spaced to
 * fit, a tooltip per bar (`<title>`) and the values in the image's text alternative.
 */
export function BarChart({
  title,
  yLabel,
  xLabel,
  points,
}: {
  title: string;
  yLabel: string;
  xLabel?: string;
  points: Array<{ label: string; value: number; detail?: string }>;
}) {
  const max = Math.max(1, ...points.map((p) => p.value));
  const left = 44;
  const w = 640;
  const h = 140;
  const top = 8;
  const plot = w - left - 8;
  const bw = plot / Math.max(points.length, 1);
  const every = Math.ceil(points.length / 8);
  const ticks = [0, Math.round(max / 2), max].filter((v, i, a) => a.indexOf(v) === i);
  const y = (v: number) => top + h - (v / max) * h;
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg
        viewBox={`0 0 ${w} ${h + top + 34}`}
        role="img"
        aria-label={`${title}: ${points.map((p) => `${p.label} ${p.value}`).join(', ')}`}
      >
        <text
          x={10}
          y={top + h / 2}
          className="axis axis-title"
          transform={`rotate(-90 10 ${top + h / 2})`}
          textAnchor="middle"
        >
          {yLabel}
        </text>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={left} x2={w - 8} y1={y(t)} y2={y(t)} className="gridline" />
            <text x={left - 4} y={y(t) + 3} textAnchor="end" className="axis">
              {t.toLocaleString()}
            </text>
          </g>
        ))}
        {points.map((p, i) => {
          const bh = (p.value / max) * h;
          return (
            <g key={i}>
              <rect
                x={left + i * bw + 1}
                y={top + h - bh}
                width={Math.max(bw - 2, 1)}
                height={Math.max(bh, p.value > 0 ? 1 : 0)}
                className="bar"
              >
                <title>{`${p.label}: ${p.value.toLocaleString()}${p.detail ? ` (${p.detail})` : ''}`}</title>
              </rect>
              {i % every === 0 && (
                <text x={left + i * bw + bw / 2} y={top + h + 14} textAnchor="middle" className="axis">
                  {p.label}
                </text>
              )}
            </g>
          );
        })}
        <line x1={left} x2={w - 8} y1={top + h} y2={top + h} className="baseline" />
        <text x={left + plot / 2} y={top + h + 30} textAnchor="middle" className="axis axis-title">
          {xLabel}
        </text>
      </svg>
    </figure>
  );
}
