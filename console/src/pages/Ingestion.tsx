import { useState, type FormEvent } from 'react';
import { api, ApiError, upload } from '../api';
import { DataTable, ErrorText, Page, parseJsonObject, useAction } from '../ui';

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

const DATA_TYPES = ['operators', 'leases', 'wells', 'permits', 'flaring', 'production'] as const;
const DISTRICTS = ['01', '02', '03', '04', '05', '06', '6E', '7B', '7C', '08', '8A', '8B', '09', '10'];

export function IngestionPage() {
  return (
    <Page title="Ingestion">
      <p className="muted">Bring operator data into the knowledge graph: a CSV well list, SCADA readings, or a Railroad Commission scrape. The same file or batch twice changes nothing.</p>
      <div className="stack">
        <CsvUpload />
        <div className="columns">
          <ScadaBatch />
          <Scrape />
        </div>
      </div>
    </Page>
  );
}

function GraphFacts({ graph }: { graph: GraphCounts }) {
  return (
    <DataTable
      caption="Knowledge graph"
      value={[{ created: graph.created, updated: graph.updated, unchanged: graph.unchanged, 'edges created': graph.edges_created, 'production reports': graph.production_reports, skipped: graph.skipped }]}
    />
  );
}

function CsvUpload() {
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
      setResult(await upload<CsvResult>('/ingest/operator/csv', form, (sent, total) => setProgress({ sent, total: total || file.size })));
    });
  };
  // A file refused whole (no valid row) still carries its row-by-row report.
  const refusedReport = action.error instanceof ApiError ? ((action.error.body as { report?: CsvResult['rejections'] } | undefined)?.report ?? null) : null;
  const uploaded = progress && progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="csv-title">
      <h2 id="csv-title">Operator CSV</h2>
      <p className="muted small">UTF-8, one well per row, with an API number column (PDQ-style headers are recognised); up to 64 MB.</p>
      <div className="row">
        <label>
          CSV file
          <input type="file" accept=".csv,text/csv" onChange={(e) => { setFile(e.target.files?.[0] ?? null); setResult(null); setProgress(null); action.clear(); }} />
        </label>
        <button type="submit" disabled={!file || action.busy}>
          {action.busy ? 'Importing…' : 'Import'}
        </button>
      </div>
      {progress && action.busy && (
        <div role="status">
          <label>
            {uploaded < 100 ? `Uploading ${file?.name}: ${uploaded}%` : `Uploaded ${file?.name}; checking rows and feeding the graph…`}
            <progress max={100} value={uploaded < 100 ? uploaded : undefined} />
          </label>
        </div>
      )}
      <ErrorText error={action.error} />
      {refusedReport && <RejectionTable rejections={refusedReport} truncated={false} />}
      {result && (
        <section aria-labelledby="csv-result-title">
          <h3 id="csv-result-title">
            {result.filename}: {result.accepted.toLocaleString()} of {result.rows.toLocaleString()} rows accepted, {result.rejected.toLocaleString()} rejected
          </h3>
          {!result.recorded && <p className="notice">This file was imported before; the graph was only re-checked.</p>}
          <GraphFacts graph={result.graph} />
          {result.rejections.length > 0 && <RejectionTable rejections={result.rejections} truncated={result.rejections_truncated} total={result.rejected} />}
        </section>
      )}
    </form>
  );
}

function RejectionTable({ rejections, truncated, total }: { rejections: CsvResult['rejections']; truncated: boolean; total?: number }) {
  return (
    <div className="table-wrap">
      <table>
        <caption>
          Rejected rows{truncated && total ? ` (first ${rejections.length} of ${total.toLocaleString()})` : ''}
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

function ScadaBatch() {
  const [text, setText] = useState(
    JSON.stringify({ readings: [{ well_api: '42-389-31001', timestamp: new Date().toISOString().slice(0, 19) + 'Z', metrics: { oil_bbl: 120, flared_mcf: 40 } }] }, null, 2),
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
        void action.run(async () => setResult(await api.post<ScadaResult>('/ingest/scada', parseJsonObject(text, 'The batch'))));
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
            {result.readings} readings for {result.wells} wells; {result.wells_updated} wells updated{result.recorded ? '' : ' (a repeat: nothing changed)'}.
            {result.unknown_wells.length > 0 && ` Unknown wells: ${result.unknown_wells.join(', ')}.`}
          </p>
          {result.anomalies.length > 0 && <DataTable caption="Anomalies flagged" value={result.anomalies.map((a) => ({ well: a.well_api, kind: a.kind.replace(/_/g, ' '), detail: a.detail, observed: a.observed_at }))} />}
        </section>
      )}
    </form>
  );
}

function Scrape() {
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
        void action.run(async () => setResult(await api.post<ScrapeResult>('/ingest/rrc-scrape', { data_types: types, district, ...(from && to ? { date_range: { from, to } } : {}) })));
      }}
    >
      <h2 id="scrape-title">Railroad Commission scrape</h2>
      <fieldset>
        <legend>Data</legend>
        {DATA_TYPES.map((t) => (
          <label key={t} className="inline">
            <input type="checkbox" checked={types.includes(t)} onChange={(e) => setTypes(e.target.checked ? [...types, t] : types.filter((x) => x !== t))} /> {t}
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
