import { useEffect, useState, type FormEvent } from 'react';
import { api, qs } from '../api';
import { diffLines } from '../diff';
import { can, Link, navigate, useMe } from '../router';
import {
  DataTable,
  ErrorText,
  fieldError,
  Loading,
  Page,
  parseJsonObject,
  Person,
  TextField,
  useAction,
  useLoad,
  When,
} from '../ui';
import { StatusBadge } from './Approvals';

interface Connector {
  connector_key: string;
  display_name: string;
  description: string;
  connector_type: string;
  config: Record<string, unknown>;
  status: string;
  has_credential: boolean;
  read_only_verified_at: string | null;
  last_probe: null | { ok: boolean; at: string; reasons?: string[]; server_version?: string; elapsed_ms?: number };
  data_classification: string;
  updated_at: string;
}
interface Engine {
  key: string;
  title: string;
  config_schema: {
    properties?: Record<string, { type?: string; default?: unknown; enum?: unknown[] }>;
    required?: string[];
  };
  credential_fields: string[];
}
interface Exposure {
  connector_key: string;
  ekey: string;
  display_name: string;
  description: string | null;
  sql: string;
  parameters: Array<{ name: string; type: string; description?: string; required?: boolean }>;
  max_rows: number | null;
  status: string;
  approved_sql_hash: string | null;
  approved_sql?: string | null;
  author_id: string | null;
  last_editor_id: string | null;
  approved_by: string | null;
  approved_at: string | null;
  rejection_reason: string | null;
  updated_at: string | null;
}
interface Validation {
  valid: boolean;
  engine: string;
  parameters: string[];
  errors: Array<{ code: string; message: string; position?: { line: number; column: number } }>;
}
interface Schema {
  discovered_at: string;
  truncated: boolean;
  tables: Array<{ schema: string; name: string; columns: Array<{ name: string; type: string; nullable: boolean }> }>;
}

const path = (key: string, rest = '') => `/connectors/${encodeURIComponent(key)}${rest}`;

export function ConnectorsPage() {
  const me = useMe();
  const list = useLoad(() => api.get<Connector[]>('/connectors'), []);
  return (
    <Page title="Connectors">
      <p className="muted">
        Read-only data sources and the guarded queries (exposures) agents may run on them once approved.
      </p>
      <ErrorText error={list.error} />
      {list.loading && !list.data ? (
        <Loading what="connectors" />
      ) : list.data && list.data.length === 0 ? (
        <p className="muted">No connector is registered yet.</p>
      ) : list.data ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Connectors</caption>
            <thead>
              <tr>
                <th scope="col">Connector</th>
                <th scope="col">Engine</th>
                <th scope="col">Status</th>
                <th scope="col">Credential</th>
                <th scope="col">Read-only verified</th>
                <th scope="col">Last probe</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((c) => (
                <tr key={c.connector_key}>
                  <td>
                    <Link to={path(c.connector_key)}>{c.display_name}</Link>{' '}
                    <span className="muted small">({c.connector_key})</span>
                  </td>
                  <td>{c.connector_type}</td>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>{c.has_credential ? 'set' : <span className="muted">none</span>}</td>
                  <td>
                    <When at={c.read_only_verified_at} />
                  </td>
                  <td>
                    {c.last_probe ? (
                      `${c.last_probe.ok ? 'passed' : 'failed'}${c.last_probe.reasons?.length ? `: ${c.last_probe.reasons.join('; ')}` : ''}`
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {can(me, 'exposures.approve') && list.data && <ReviewQueue connectors={list.data} />}
      {can(me, 'connectors.manage') && <RegisterForm onDone={(key) => navigate(path(key))} />}
    </Page>
  );
}

/** Exposures awaiting review across the tenant's connectors (for `exposures.approve`). */
function ReviewQueue({ connectors }: { connectors: Connector[] }) {
  const pending = useLoad(
    async () =>
      (
        await Promise.all(
          connectors.map((c) =>
            api.get<Exposure[]>(`${path(c.connector_key, '/exposures')}${qs({ status: 'pending_review' })}`),
          ),
        )
      ).flat(),
    [connectors],
  );
  return (
    <section className="card" aria-labelledby="review-title" style={{ marginTop: '1rem' }}>
      <h2 id="review-title">Exposures awaiting review</h2>
      <ErrorText error={pending.error} />
      {pending.data && pending.data.length === 0 && <p className="muted">No exposure awaits review.</p>}
      <ul className="plain-list">
        {pending.data?.map((e) => (
          <li key={`${e.connector_key}/${e.ekey}`}>
            <Link to={`${path(e.connector_key)}?exposure=${encodeURIComponent(e.ekey)}`}>
              {e.display_name} ({e.connector_key}/{e.ekey})
            </Link>{' '}
            <span className="muted small">
              by <Person id={e.last_editor_id ?? e.author_id} />, <When at={e.updated_at} />
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function RegisterForm({ onDone }: { onDone: (key: string) => void }) {
  const engines = useLoad(() => api.get<Engine[]>('/connectors/engines'), []);
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [engine, setEngine] = useState('');
  const [config, setConfig] = useState('');
  const [classification, setClassification] = useState('');
  const action = useAction();
  const chosen = engines.data?.find((e) => e.key === engine) ?? engines.data?.[0];
  useEffect(() => {
    if (!chosen) return;
    // A starting config from the engine's schema: each property with its default, if any.
    const start: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(chosen.config_schema.properties ?? {}))
      start[k] = v.default ?? (v.type === 'integer' || v.type === 'number' ? 0 : '');
    setConfig(JSON.stringify(start, null, 2));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new starting config when the engine changes, not when the list reloads
  }, [chosen?.key]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const body = {
        connector_key: key,
        display_name: name,
        connector_type: chosen?.key,
        config: parseJsonObject(config, 'Config'),
        ...(classification ? { data_classification: classification } : {}),
      };
      await api.post('/connectors', body);
      onDone(key);
    });
  };
  return (
    <form className="card secondary-form" onSubmit={submit} aria-labelledby="register-title">
      <h2 id="register-title">Register a connector</h2>
      <ErrorText error={engines.error} />
      <div className="grid-form">
        <label>
          Key
          <input
            value={key}
            required
            pattern="[a-z][a-z0-9_\-]{0,63}"
            onChange={(e) => setKey(e.target.value)}
            aria-describedby="key-help"
          />
          <span id="key-help" className="muted small">
            lowercase letters, digits, _ and -
          </span>
        </label>
        <TextField label="Display name" value={name} onChange={setName} required />
        <label>
          Engine
          <select value={chosen?.key ?? ''} onChange={(e) => setEngine(e.target.value)}>
            {engines.data?.map((en) => (
              <option key={en.key} value={en.key}>
                {en.title}
              </option>
            ))}
          </select>
        </label>
        <TextField
          label="Data classification"
          value={classification}
          onChange={setClassification}
          placeholder="e.g. internal"
        />
      </div>
      <label>
        Config (JSON)
        <textarea className="mono" rows={7} value={config} onChange={(e) => setConfig(e.target.value)} />
      </label>
      <ErrorText error={action.error} />
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Registering…' : 'Register'}
      </button>
    </form>
  );
}

export function ConnectorPage({ connectorKey }: { connectorKey: string }) {
  const me = useMe();
  const connector = useLoad(() => api.get<Connector>(path(connectorKey)), [connectorKey]);
  const engines = useLoad(() => api.get<Engine[]>('/connectors/engines'), []);
  const exposures = useLoad(() => api.get<Exposure[]>(path(connectorKey, '/exposures')), [connectorKey]);
  const schema = useLoad(() => api.get<Schema>(path(connectorKey, '/schema')).catch(() => null), [connectorKey]);
  const action = useAction();
  const manage = can(me, 'connectors.manage');
  const c = connector.data;
  const focus = new URLSearchParams(location.search).get('exposure');
  const act = (rest: string, method: 'post' | 'del' = 'post') =>
    action.run(async () => {
      if (method === 'del') {
        await api.del(path(connectorKey, rest));
        navigate('/connectors');
        return;
      }
      await api.post(path(connectorKey, rest));
      connector.reload();
      schema.reload();
    });
  return (
    <Page title={c ? `Connector ${c.display_name}` : 'Connector'}>
      <p>
        <Link to="/connectors">← All connectors</Link>
      </p>
      <ErrorText error={connector.error} />
      {connector.loading && !c && <Loading what="the connector" />}
      {c && (
        <div className="columns">
          <div className="stack">
            <section className="card" aria-labelledby="facts-title">
              <h2 id="facts-title">
                {c.connector_key} <StatusBadge status={c.status} />
              </h2>
              <dl className="facts">
                <dt>Engine</dt>
                <dd>{c.connector_type}</dd>
                <dt>Config</dt>
                <dd>
                  <code>
                    {Object.entries(c.config)
                      .map(([k, v]) => `${k}=${String(v)}`)
                      .join(' · ')}
                  </code>
                </dd>
                <dt>Credential</dt>
                <dd>{c.has_credential ? 'set (never shown)' : 'none'}</dd>
                <dt>Read-only verified</dt>
                <dd>
                  <When at={c.read_only_verified_at} />
                </dd>
                <dt>Last probe</dt>
                <dd>
                  {c.last_probe ? (
                    <>
                      {c.last_probe.ok ? 'passed' : 'failed'} <When at={c.last_probe.at} />
                      {c.last_probe.server_version ? ` · ${c.last_probe.server_version}` : ''}
                      {c.last_probe.reasons?.length ? (
                        <span className="block error">{c.last_probe.reasons.join('; ')}</span>
                      ) : null}
                    </>
                  ) : (
                    'never'
                  )}
                </dd>
                <dt>Classification</dt>
                <dd>{c.data_classification || '—'}</dd>
              </dl>
              {manage && (
                <div className="row">
                  <button type="button" onClick={() => act('/probe')} disabled={action.busy}>
                    Probe now
                  </button>
                  <button type="button" className="secondary" onClick={() => act('/discover')} disabled={action.busy}>
                    Discover schema
                  </button>
                  {c.status === 'disabled' ? (
                    <button type="button" className="secondary" onClick={() => act('/enable')} disabled={action.busy}>
                      Enable
                    </button>
                  ) : (
                    <button type="button" className="secondary" onClick={() => act('/disable')} disabled={action.busy}>
                      Disable
                    </button>
                  )}
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => confirm(`Delete connector ${c.connector_key}?`) && act('', 'del')}
                    disabled={action.busy}
                  >
                    Delete
                  </button>
                </div>
              )}
              <ErrorText error={action.error} />
            </section>
            {manage && (
              <CredentialForm
                connector={c}
                engine={engines.data?.find((e) => e.key === c.connector_type)}
                onDone={() => {
                  connector.reload();
                  schema.reload();
                }}
              />
            )}
            <SchemaView schema={schema.data ?? null} />
          </div>
          <div className="stack">
            <ErrorText error={exposures.error} />
            <section className="card" aria-labelledby="exposures-title">
              <h2 id="exposures-title">Exposures</h2>
              {exposures.data && exposures.data.length === 0 && <p className="muted">No exposure yet.</p>}
              {exposures.data?.map((e) => (
                <ExposureView key={e.ekey} exposure={e} open={focus === e.ekey} onChanged={exposures.reload} />
              ))}
            </section>
            {can(me, 'exposures.propose') && <DraftForm connectorKey={connectorKey} onDone={exposures.reload} />}
          </div>
        </div>
      )}
    </Page>
  );
}

function CredentialForm({
  connector,
  engine,
  onDone,
}: {
  connector: Connector;
  engine: Engine | undefined;
  onDone: () => void;
}) {
  const fields = engine?.credential_fields ?? ['username', 'password'];
  const [values, setValues] = useState<Record<string, string>>({});
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await api.put(path(connector.connector_key, '/credential'), { credential: values });
      setValues({});
      onDone();
    });
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="credential-title">
      <h2 id="credential-title">{connector.has_credential ? 'Replace the credential' : 'Set the credential'}</h2>
      <p className="muted small">Written to the secret store and never shown again; setting it probes the connector.</p>
      {fields.map((f) => (
        <label key={f}>
          {f.replace(/_/g, ' ')}
          {f === 'private_key' ? (
            <textarea
              className="mono"
              rows={4}
              value={values[f] ?? ''}
              onChange={(e) => setValues({ ...values, [f]: e.target.value })}
              autoComplete="off"
            />
          ) : (
            <input
              type={f === 'password' ? 'password' : 'text'}
              value={values[f] ?? ''}
              onChange={(e) => setValues({ ...values, [f]: e.target.value })}
              autoComplete="off"
            />
          )}
        </label>
      ))}
      <ErrorText error={action.error} />
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Probing…' : 'Save and probe'}
      </button>
    </form>
  );
}

function SchemaView({ schema }: { schema: Schema | null }) {
  if (!schema) return null;
  return (
    <section className="card" aria-labelledby="schema-title">
      <h2 id="schema-title">Schema</h2>
      <p className="muted small">
        Discovered <When at={schema.discovered_at} />
        {schema.truncated ? ' (truncated)' : ''}; {schema.tables.length} tables.
      </p>
      {schema.tables.map((t) => (
        <details key={`${t.schema}.${t.name}`}>
          <summary>
            {t.schema}.{t.name} <span className="muted small">({t.columns.length} columns)</span>
          </summary>
          <DataTable
            value={t.columns.map((col) => ({
              column: col.name,
              type: col.type,
              nullable: col.nullable ? 'yes' : 'no',
            }))}
          />
        </details>
      ))}
    </section>
  );
}

/** Validates SQL as it is typed (debounced), with the shared validator the API uses. */
function useValidation(sql: string, connectorKey: string) {
  const [result, setResult] = useState<{ validation?: Validation; error?: unknown }>({});
  useEffect(() => {
    if (!sql.trim()) return setResult({});
    const timer = setTimeout(() => {
      api.post<Validation>('/connectors/validate', { sql, connector_key: connectorKey }).then(
        (validation) => setResult({ validation }),
        (error) => setResult({ error }),
      );
    }, 350);
    return () => clearTimeout(timer);
  }, [sql, connectorKey]);
  return result;
}

function ValidationResult({ validation, id }: { validation: Validation | undefined; id?: string }) {
  if (!validation) return null;
  return validation.valid ? (
    <p className="small" role="status" id={id}>
      <span className="badge badge-pass">valid</span> parameters:{' '}
      {validation.parameters.length ? validation.parameters.map((p) => `:${p}`).join(', ') : 'none'}
    </p>
  ) : (
    <ul className="error" id={id} aria-label="SQL problems">
      {validation.errors.map((e, i) => (
        <li key={i}>
          {e.position ? `line ${e.position.line}, column ${e.position.column}: ` : ''}
          {e.message} <span className="muted">({e.code})</span>
        </li>
      ))}
    </ul>
  );
}

function DraftForm({ connectorKey, onDone }: { connectorKey: string; onDone: () => void }) {
  const [ekey, setEkey] = useState('');
  const [name, setName] = useState('');
  const [sql, setSql] = useState('');
  const [parameters, setParameters] = useState('[]');
  const validation = useValidation(sql, connectorKey);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      let params: unknown;
      try {
        params = JSON.parse(parameters || '[]');
      } catch {
        throw new Error('Parameters must be a JSON list, e.g. [{"name": "api", "type": "string"}].');
      }
      await api.post(path(connectorKey, '/exposures'), {
        ekey,
        display_name: name || undefined,
        sql,
        parameters: params,
      });
      setEkey('');
      setName('');
      setSql('');
      onDone();
    });
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="draft-title">
      <h2 id="draft-title">Draft an exposure</h2>
      <div className="grid-form">
        <TextField label="Exposure key" value={ekey} onChange={setEkey} required />
        <TextField label="Display name" value={name} onChange={setName} />
      </div>
      <label>
        SQL
        <textarea
          className="mono"
          rows={6}
          value={sql}
          required
          onChange={(e) => setSql(e.target.value)}
          aria-describedby="draft-validation"
          placeholder="select api_number, oil_bbl from production where api_number = :api"
        />
      </label>
      <ValidationResult validation={validation.validation} id="draft-validation" />
      <ErrorText error={validation.error} />
      <label>
        Parameters (JSON list of {'{name, type, description?, required?}'})
        <textarea className="mono" rows={3} value={parameters} onChange={(e) => setParameters(e.target.value)} />
      </label>
      {fieldError(action.error, 'sql') && <p className="error">{fieldError(action.error, 'sql')}</p>}
      <ErrorText error={action.error} />
      <button type="submit" disabled={action.busy}>
        Save draft
      </button>
    </form>
  );
}

function ExposureView({ exposure: e, open, onChanged }: { exposure: Exposure; open: boolean; onChanged: () => void }) {
  const me = useMe();
  const action = useAction();
  const [reason, setReason] = useState('');
  const [params, setParams] = useState('{}');
  const [run, setRun] = useState<unknown>();
  // Drafts and exposures under review are open (their author or reviewer acts on them); the rest fold.
  const unfolded = open || e.status === 'pending_review' || e.status === 'draft';
  const validation = useValidation(unfolded ? e.sql : '', e.connector_key);
  const base = path(e.connector_key, `/exposures/${encodeURIComponent(e.ekey)}`);
  const post = (rest: string, body?: unknown) =>
    action.run(async () => {
      await api.post(`${base}${rest}`, body);
      onChanged();
    });
  const changed = e.approved_sql != null && e.approved_sql !== e.sql;
  return (
    <details className="tool-call" open={unfolded}>
      <summary>
        {e.display_name} <span className="muted small">({e.ekey})</span> <StatusBadge status={e.status} />
      </summary>
      <h3 className="small-heading">SQL</h3>
      <pre className="json">{e.sql}</pre>
      <ValidationResult validation={validation.validation} />
      <h3 className="small-heading">Against the approved version</h3>
      {e.approved_sql == null ? (
        <p className="muted small">Never approved: all of it is new.</p>
      ) : changed ? (
        <pre className="diff" aria-label="Changes since the approved version">
          {diffLines(e.approved_sql, e.sql).map((l, i) => (
            <span key={i} className={l.kind}>
              <span className="sr-only">{l.kind === 'add' ? 'added: ' : l.kind === 'del' ? 'removed: ' : ''}</span>
              {l.kind === 'add' ? '+ ' : l.kind === 'del' ? '- ' : '  '}
              {l.text}
            </span>
          ))}
        </pre>
      ) : (
        <p className="small">
          Unchanged since it was approved
          {e.approved_by ? (
            <>
              {' '}
              by <Person id={e.approved_by} />
            </>
          ) : null}
          .
        </p>
      )}
      {e.parameters.length > 0 && <DataTable value={e.parameters} caption="Parameters" />}
      {e.rejection_reason && <p className="notice">Rejected: {e.rejection_reason}</p>}
      <div className="row">
        {can(me, 'exposures.propose') && e.status === 'draft' && (
          <button type="button" onClick={() => post('/submit')} disabled={action.busy}>
            Submit for review
          </button>
        )}
        {can(me, 'exposures.approve') && e.status === 'pending_review' && (
          <>
            <button type="button" onClick={() => post('/approve')} disabled={action.busy}>
              Approve
            </button>
            <label>
              Rejection reason
              <input value={reason} onChange={(ev) => setReason(ev.target.value)} />
            </label>
            <button
              type="button"
              className="secondary"
              onClick={() => post('/reject', { reason })}
              disabled={action.busy || !reason.trim()}
            >
              Reject
            </button>
          </>
        )}
        {can(me, 'exposures.approve') && (e.status === 'approved' || e.status === 'pending_review') && (
          <button type="button" className="secondary" onClick={() => post('/retire')} disabled={action.busy}>
            Retire
          </button>
        )}
      </div>
      <ErrorText error={action.error} />
      {e.status !== 'retired' && (
        <form
          className="secondary-form"
          aria-label={`Preview ${e.ekey}`}
          onSubmit={(ev) => {
            ev.preventDefault();
            void action.run(async () =>
              setRun(await api.post(`${base}/preview`, { params: parseJsonObject(params, 'Parameters') })),
            );
          }}
        >
          <label>
            Preview parameters (JSON object)
            <input className="mono" value={params} onChange={(ev) => setParams(ev.target.value)} />
          </label>
          <button type="submit" className="secondary" disabled={action.busy}>
            Preview
          </button>
          {run !== undefined && (
            <DataTable
              value={{
                columns: (run as { columns: Array<{ name: string }> }).columns.map((c) => c.name),
                rows: (run as { rows: unknown[][] }).rows,
              }}
              caption="Preview rows"
            />
          )}
        </form>
      )}
    </details>
  );
}
