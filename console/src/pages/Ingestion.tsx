import { useState, type FormEvent } from 'react';
import { api, ApiError, qs, upload } from '../api';
import { DataTable, ErrorText, Loading, Page, parseJsonObject, Person, useAction, useLoad, When } from '../ui';
import { Pager, StatusBadge } from './Approvals';

interface GraphCounts {
  created: number;
  updated: number;
  unchanged: number;
  edges_created: number;
  production_reports: number;
  skipped: number;
}
interface CsvResult {
  import_id: string;
  filename: string;
  rows: number;
  accepted: number;
  rejected: number;
  rejections: Array<{ row: number; column: string; reason: string }>;
  rejections_truncated: boolean;
  recorded: boolean;
  graph: GraphCounts;
}
interface ScadaResult {
  batch_id: string;
  readings: number;
  wells: number;
  unknown_wells: string[];
  wells_updated: number;
  anomalies: Array<{ well_api: string; kind: string; detail: string; observed_at: string }>;
  recorded: boolean;
}
interface ScrapeResult {
  scrape_id: string;
  district: string;
  date_range: { from: string; to: string };
  counts: Record<string, number>;
  recorded: boolean;
  graph: GraphCounts;
}

interface ImportSummary {
  import_id: string;
  kind: 'operator-csv' | 'rrc-scrape' | 'scada';
  status: 'importing' | 'completed';
  source: string;
  started_by: string;
  started_at: string;
  finished_at: string | null;
  rows: number | null;
  accepted: number | null;
  rejected: number | null;
  counts: Record<string, number>;
}
interface ImportDetail extends ImportSummary {
  rejections: CsvResult['rejections'];
  rejections_truncated: boolean;
}

const KINDS = { 'operator-csv': 'CSV import', 'rrc-scrape': 'RRC scrape', scada: 'SCADA batch' } as const;

const DATA_TYPES = ['operators', 'leases', 'wells', 'permits', 'flaring', 'production'] as const;
const DISTRICTS = ['01', '02', '03', '04', '05', '06', '6E', '7B', '7C', '08', '8A', '8B', '09', '10'];

export function IngestionPage() {
  // Every finished upload, batch or scrape reloads the history, where it now appears.
  const [imported, setImported] = useState(0);
  const done = () => setImported((n) => n + 1);
  return (
    <Page title="Ingestion">
      <p className="muted">
        Bring operator data into the knowledge graph: a CSV well list, SCADA readings, or a Railroad Commission scrape.
        The same file or batch twice changes nothing.
      </p>
      <div className="stack">
        <CsvUpload onDone={done} />
        <div className="columns">
          <ScadaBatch onDone={done} />
          <Scrape onDone={done} />
        </div>
        <ImportHistory imported={imported} />
      </div>
    </Page>
  );
}

function ImportHistory({ imported }: { imported: number }) {
  const [kind, setKind] = useState('');
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const limit = 20;
  const { data, error, loading } = useLoad(
    () =>
      api.get<{ imports: ImportSummary[]; total: number }>(
        `/ingest/imports${qs({ kind: kind || undefined, status: status || undefined, limit, offset })}`,
      ),
    [kind, status, offset, imported],
  );
  return (
    <section className="card" aria-labelledby="history-title">
      <h2 id="history-title">Import history</h2>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter imports">
        <label>
          Kind
          <select
            value={kind}
            onChange={(e) => {
              setKind(e.target.value);
              setOffset(0);
            }}
          >
            <option value="">All</option>
            {Object.entries(KINDS).map(([k, label]) => (
              <option key={k} value={k}>
                {label}
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
              setOffset(0);
            }}
          >
            <option value="">All</option>
            <option value="completed">completed</option>
            <option value="importing">importing</option>
          </select>
        </label>
      </form>
      <ErrorText error={error} />
      {loading && !data ? (
        <Loading what="imports" />
      ) : data && data.imports.length === 0 ? (
        <p className="muted">No imports match these filters.</p>
      ) : data ? (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Imports, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Source</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Rows
                  </th>
                  <th scope="col" className="num">
                    Accepted
                  </th>
                  <th scope="col" className="num">
                    Rejected
                  </th>
                  <th scope="col">By</th>
                  <th scope="col">Finished</th>
                </tr>
              </thead>
              <tbody>
                {data.imports.map((i) => (
                  <tr key={i.import_id}>
                    <td>
                      <When at={i.started_at} />
                    </td>
                    <td>{KINDS[i.kind] ?? i.kind}</td>
                    <td>{i.source}</td>
                    <td>
                      <StatusBadge status={i.status} />
                    </td>
                    <td className="num">{i.rows?.toLocaleString() ?? ''}</td>
                    <td className="num">{i.accepted?.toLocaleString() ?? ''}</td>
                    <td className="num">
                      {i.kind === 'operator-csv' && (i.rejected ?? 0) > 0 ? (
                        <button
                          type="button"
                          className="secondary small"
                          aria-expanded={open === i.import_id}
                          onClick={() => setOpen(open === i.import_id ? null : i.import_id)}
                        >
                          {i.rejected!.toLocaleString()} <span className="sr-only">rejected rows of {i.source}</span>
                        </button>
                      ) : (
                        (i.rejected?.toLocaleString() ?? '')
                      )}
                    </td>
                    <td>
                      <Person id={i.started_by} />
                    </td>
                    <td>
                      <When at={i.finished_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager offset={offset} limit={limit} total={data.total} onChange={setOffset} />
          {open && <PastRejections importId={open} />}
        </>
      ) : null}
    </section>
  );
}

/** A past import's rejection report, as its upload answered (the first 1,000 rows). */
function PastRejections({ importId }: { importId: string }) {
  const { data, error, loading } = useLoad(() => api.get<ImportDetail>(`/ingest/imports/${importId}`), [importId]);
  if (loading && !data) return <Loading what="the rejection report" />;
  if (error) return <ErrorText error={error} />;
  if (!data) return null;
  if (data.rejections.length === 0)
    return <p className="muted">This import was recorded before rejection reports were kept.</p>;
  return (
    <RejectionTable
      rejections={data.rejections}
      truncated={data.rejections_truncated}
      total={data.rejected ?? undefined}
      caption={`Rejected rows of ${data.source}`}
    />
  );
}

function GraphFacts({ graph }: { graph: GraphCounts }) {
  return (
    <DataTable
      caption="Knowledge graph"
      value={[
        {
          created: graph.created,
          updated: graph.updated,
          unchanged: graph.unchanged,
          'edges created': graph.edges_created,
          'production reports': graph.production_reports,
          skipped: graph.skipped,
        },
      ]}
    />
  );
}

function CsvUpload({ onDone }: { onDone: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [result, setResult] = useState<CsvResult | null>(null);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    setResult(null);
    setProgress({ sent: 0, total: file.size });
    void action.run(async () => {
      const form = new FormData();
      form.append('file', file, file.name);
      setResult(
        await upload<CsvResult>('/ingest/operator/csv', form, (sent, total) =>
          setProgress({ sent, total: total || file.size }),
        ),
      );
      onDone();
    });
  };
  // A file refused whole (no valid row) still carries its row-by-row report.
  const refusedReport =
    action.error instanceof ApiError
      ? ((action.error.body as { report?: CsvResult['rejections'] } | undefined)?.report ?? null)
      : null;
  const uploaded = progress && progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="csv-title">
      <h2 id="csv-title">Operator CSV</h2>
      <p className="muted small">
        UTF-8, one well per row, with an API number column (PDQ-style headers are recognised); up to 64 MB.
      </p>
      <div className="row">
        <label>
          CSV file
          <input
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setResult(null);
              setProgress(null);
              action.clear();
            }}
          />
        </label>
        <button type="submit" disabled={!file || action.busy}>
          {action.busy ? 'Importing…' : 'Import'}
        </button>
      </div>
      {progress && action.busy && (
        <div role="status">
          <label>
            {uploaded < 100
              ? `Uploading ${file?.name}: ${uploaded}%`
              : `Uploaded ${file?.name}; checking rows and feeding the graph…`}
            <progress max={100} value={uploaded < 100 ? uploaded : undefined} />
          </label>
        </div>
      )}
      <ErrorText error={action.error} />
      {refusedReport && <RejectionTable rejections={refusedReport} truncated={false} />}
      {result && (
        <section aria-labelledby="csv-result-title">
          <h3 id="csv-result-title">
            {result.filename}: {result.accepted.toLocaleString()} of {result.rows.toLocaleString()} rows accepted,{' '}
            {result.rejected.toLocaleString()} rejected
          </h3>
          {!result.recorded && <p className="notice">This file was imported before; the graph was only re-checked.</p>}
          <GraphFacts graph={result.graph} />
          {result.rejections.length > 0 && (
            <RejectionTable
              rejections={result.rejections}
              truncated={result.rejections_truncated}
              total={result.rejected}
            />
          )}
        </section>
      )}
    </form>
  );
}

function RejectionTable({
  rejections,
  truncated,
  total,
  caption = 'Rejected rows',
}: {
  rejections: CsvResult['rejections'];
  truncated: boolean;
  total?: number;
  caption?: string;
}) {
  return (
    <div className="table-wrap">
      <table>
        <caption>
          {caption}
          {truncated && total ? ` (first ${rejections.length} of ${total.toLocaleString()})` : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col" className="num">
              Row
            </th>
            <th scope="col">Column</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {rejections.map((r, i) => (
            <tr key={`${r.row}-${r.column}-${i}`}>
              <td className="num">{r.row}</td>
              <td>{r.column}</td>
              <td>{r.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ScadaBatch({ onDone }: { onDone: () => void }) {
  const [text, setText] = useState(
    JSON.stringify(
      {
        readings: [
          {
            well_api: '42-389-31001',
            timestamp: new Date().toISOString().slice(0, 19) + 'Z',
            metrics: { oil_bbl: 120, flared_mcf: 40 },
          },
        ],
      },
      null,
      2,
    ),
  );
  const [result, setResult] = useState<ScadaResult | null>(null);
  const action = useAction();
  return (
    <form
      className="card"
      aria-labelledby="scada-title"
      onSubmit={(e) => {
        e.preventDefault();
        setResult(null);
        void action.run(async () => {
          setResult(await api.post<ScadaResult>('/ingest/scada', parseJsonObject(text, 'The batch')));
          onDone();
        });
      }}
    >
      <h2 id="scada-title">SCADA batch</h2>
      <label>
        Readings (JSON)
        <textarea className="mono" rows={9} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <ErrorText error={action.error} />
      <button type="submit" disabled={action.busy}>
        Send batch
      </button>
      {result && (
        <section aria-label="SCADA result">
          <p role="status">
            {result.readings} readings for {result.wells} wells; {result.wells_updated} wells updated
            {result.recorded ? '' : ' (a repeat: nothing changed)'}.
            {result.unknown_wells.length > 0 && ` Unknown wells: ${result.unknown_wells.join(', ')}.`}
          </p>
          {result.anomalies.length > 0 && (
            <DataTable
              caption="Anomalies flagged"
              value={result.anomalies.map((a) => ({
                well: a.well_api,
                kind: a.kind.replace(/_/g, ' '),
                detail: a.detail,
                observed: a.observed_at,
              }))}
            />
          )}
        </section>
      )}
    </form>
  );
}

function Scrape({ onDone }: { onDone: () => void }) {
  const [types, setTypes] = useState<string[]>([...DATA_TYPES]);
  const [district, setDistrict] = useState('08');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [result, setResult] = useState<ScrapeResult | null>(null);
  const action = useAction();
  return (
    <form
      className="card"
      aria-labelledby="scrape-title"
      onSubmit={(e) => {
        e.preventDefault();
        setResult(null);
        void action.run(async () => {
          setResult(
            await api.post<ScrapeResult>('/ingest/rrc-scrape', {
              data_types: types,
              district,
              ...(from && to ? { date_range: { from, to } } : {}),
            }),
          );
          onDone();
        });
      }}
    >
      <h2 id="scrape-title">Railroad Commission scrape</h2>
      <fieldset>
        <legend>Data</legend>
        {DATA_TYPES.map((t) => (
          <label key={t} className="inline">
            <input
              type="checkbox"
              checked={types.includes(t)}
              onChange={(e) => setTypes(e.target.checked ? [...types, t] : types.filter((x) => x !== t))}
            />{' '}
            {t}
          </label>
        ))}
      </fieldset>
      <div className="grid-form">
        <label>
          District
          <select value={district} onChange={(e) => setDistrict(e.target.value)}>
            {DISTRICTS.map((d) => (
              <option key={d}>{d}</option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To
          <input type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
      </div>
      <ErrorText error={action.error} />
      <button type="submit" disabled={action.busy || types.length === 0}>
        {action.busy ? 'Scraping…' : 'Run scrape'}
      </button>
      {result && (
        <section aria-label="Scrape result">
          <p role="status">
            District {result.district}, {result.date_range.from} to {result.date_range.to}
            {result.recorded ? '' : ' (a repeat: nothing new)'}.
          </p>
          <DataTable caption="Records" value={[result.counts]} />
          <GraphFacts graph={result.graph} />
        </section>
      )}
    </form>
  );
}
