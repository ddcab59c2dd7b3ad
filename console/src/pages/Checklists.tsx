import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, qs } from '../api';
import { can, Link, navigate, useMe } from '../router';
import { DataTable, ErrorText, fieldError, Loading, Page, useLoad, When } from '../ui';
import { StatusBadge } from './Approvals';

interface Template {
  template_id: string;
  title: string;
  form: string;
  entity_type: string;
}
interface ChecklistSummary {
  checklist_id: string;
  title: string;
  form: string;
  entity_id: string;
  status: string;
  due_date: string | null;
  period: string | null;
}
interface Item {
  index: number;
  key: string;
  label: string;
  item_type: string;
  status: string;
  notes: string | null;
  artifact_count: number;
}
interface Checklist extends ChecklistSummary {
  pending_approval_id: string | null;
  items: Item[];
  updated_at: string;
}

export function ChecklistsPage() {
  const [status, setStatus] = useState('');
  const list = useLoad(() => api.get<{ checklists: ChecklistSummary[]; total: number }>(`/checklists${qs({ status })}`), [status]);
  const templates = useLoad(() => api.get<{ templates: Template[] }>('/checklists/templates'), []);
  const [templateId, setTemplateId] = useState('');
  const [entityId, setEntityId] = useState('');
  const [error, setError] = useState<unknown>();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const created = await api.post<{ checklist_id: string }>('/checklists', { template_id: templateId, entity_id: entityId.trim() });
      navigate(`/checklists/${created.checklist_id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Page title="Checklists">
      <form className="filters" onSubmit={create} aria-label="New checklist">
        <label>
          Form
          <select required value={templateId} onChange={(e) => setTemplateId(e.target.value)} aria-invalid={!!fieldError(error, 'template_id')}>
            <option value="">Choose…</option>
            {templates.data?.templates.map((t) => (
              <option key={t.template_id} value={t.template_id}>
                {t.title}
              </option>
            ))}
          </select>
          {fieldError(error, 'template_id') && <span className="error">{fieldError(error, 'template_id')}</span>}
        </label>
        <label>
          Well (entity id)
          <input required value={entityId} onChange={(e) => setEntityId(e.target.value)} placeholder="42-…" aria-invalid={!!fieldError(error, 'entity_id')} />
          {fieldError(error, 'entity_id') && <span className="error">{fieldError(error, 'entity_id')}</span>}
        </label>
        <button type="submit">Start checklist</button>
        {!fieldError(error, 'template_id') && !fieldError(error, 'entity_id') && <ErrorText error={error} />}
      </form>
      <label className="inline-field">
        Status
        <select value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">Any</option>
          {['in_progress', 'in_review', 'exception_requested', 'approved', 'exception_granted', 'rejected'].map((s) => (
            <option key={s} value={s}>
              {s.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </label>
      <ErrorText error={list.error ?? templates.error} />
      {list.loading && !list.data && <Loading what="checklists" />}
      {list.data && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Checklist</th>
                <th scope="col">Entity</th>
                <th scope="col">Status</th>
                <th scope="col">Period</th>
                <th scope="col">Due</th>
              </tr>
            </thead>
            <tbody>
              {list.data.checklists.map((c) => (
                <tr key={c.checklist_id}>
                  <td>
                    <Link to={`/checklists/${c.checklist_id}`}>{c.title}</Link>
                  </td>
                  <td>{c.entity_id}</td>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>{c.period ?? ''}</td>
                  <td>{c.due_date ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.checklists.length === 0 && <p className="muted">No checklists.</p>}
        </div>
      )}
    </Page>
  );
}

interface Assessment {
  state: string;
  message: string;
  fields: Record<number, Array<{ field_name: string; field_value: unknown; confidence: number; source: string }>>;
  validations: Record<number, Array<{ check_name: string; passed: boolean; message: string; severity: string }>>;
  tables: Record<number, { columns: unknown[]; rows: unknown[] }>;
  items: Record<number, { status: string; summary: string }>;
}

export function ChecklistPage({ id }: { id: string }) {
  const me = useMe();
  const checklist = useLoad(() => api.get<Checklist>(`/checklists/${encodeURIComponent(id)}`), [id]);
  const [submitError, setSubmitError] = useState<unknown>();
  const [assessment, setAssessment] = useState<Assessment | null>(null);
  const [streamError, setStreamError] = useState<unknown>();
  const source = useRef<EventSource | null>(null);
  useEffect(() => () => source.current?.close(), []);

  const assess = (rerun: boolean) => {
    source.current?.close();
    setStreamError(undefined);
    const state: Assessment = { state: 'queued', message: '', fields: {}, validations: {}, tables: {}, items: {} };
    setAssessment({ ...state });
    const es = new EventSource(`/api/v1/workspaces/${encodeURIComponent(id)}/stream${rerun ? '?rerun=true' : ''}`, { withCredentials: true });
    source.current = es;
    const on = (name: string, apply: (d: Record<string, any>) => void) =>
      es.addEventListener(name, (ev) => {
        apply(JSON.parse((ev as MessageEvent).data));
        setAssessment({ ...state, fields: { ...state.fields }, validations: { ...state.validations }, tables: { ...state.tables }, items: { ...state.items } });
      });
    on('agent_status', (d) => { state.state = d.state; state.message = d.message ?? ''; });
    on('checklist_item_update', (d) => { state.items[d.item_index] = { status: d.status, summary: d.summary }; });
    on('form_field_update', (d) => { (state.fields[d.item_index] ??= []).push(d as never); });
    on('validation_result', (d) => { (state.validations[d.item_index] ??= []).push(d as never); });
    on('data_table_update', (d) => { state.tables[d.item_index] = { columns: d.columns, rows: d.rows }; });
    on('assessment_complete', () => {
      state.state = 'completed';
      es.close();
      checklist.reload();
    });
    es.addEventListener('error', () => {
      if (es.readyState === EventSource.CLOSED && state.state !== 'completed') {
        setStreamError(new Error('The assessment stream closed before it completed.'));
      }
    });
  };

  const submit = async () => {
    setSubmitError(undefined);
    try {
      await api.post(`/checklists/${encodeURIComponent(id)}/submit`, {});
      checklist.reload();
    } catch (err) {
      setSubmitError(err);
    }
  };

  const c = checklist.data;
  return (
    <Page title={c ? c.title : 'Checklist'}>
      <p>
        <Link to="/checklists">← All checklists</Link>
      </p>
      <ErrorText error={checklist.error} />
      {!c && checklist.loading && <Loading what="the checklist" />}
      {c && (
        <>
          <p>
            <StatusBadge status={c.status} /> {c.form} for <Link to={`/graph/Well/${encodeURIComponent(c.entity_id)}`}>{c.entity_id}</Link>
            {c.period && ` · period ${c.period}`}
            {c.due_date && ` · due ${c.due_date}`} · updated <When at={c.updated_at} />
            {c.pending_approval_id && (
              <>
                {' '}· <Link to={`/approvals/${c.pending_approval_id}`}>pending approval</Link>
              </>
            )}
          </p>
          <div className="row">
            <button type="button" onClick={() => assess(!!assessment)}>
              {assessment ? 'Re-run assessment' : 'Run live assessment'}
            </button>
            {can(me, 'filings.submit') && c.status === 'in_progress' && (
              <button type="button" onClick={submit}>
                Submit for review
              </button>
            )}
          </div>
          <ErrorText error={submitError} />
          {submitError && Array.isArray((submitError as { body?: { incomplete_items?: unknown[] } }).body?.incomplete_items) && (
            <ul className="error">
              {((submitError as { body: { incomplete_items: Array<{ index: number; label: string; status: string }> } }).body.incomplete_items).map((i) => (
                <li key={i.index}>
                  {i.label}: {i.status.replace(/_/g, ' ')}
                </li>
              ))}
            </ul>
          )}
          {assessment && (
            <p className="notice" role="status">
              Assessment: {assessment.state}
              {assessment.message ? ` — ${assessment.message}` : ''}
            </p>
          )}
          <ErrorText error={streamError} />
          <ol className="items">
            {c.items.map((item) => (
              <ItemView key={item.index} checklistId={c.checklist_id} item={item} editable={c.status === 'in_progress'} assessment={assessment} onSaved={checklist.reload} />
            ))}
          </ol>
        </>
      )}
    </Page>
  );
}

function ItemView({ checklistId, item, editable, assessment, onSaved }: { checklistId: string; item: Item; editable: boolean; assessment: Assessment | null; onSaved: () => void }) {
  const [status, setStatus] = useState(item.status);
  const [notes, setNotes] = useState(item.notes ?? '');
  const [error, setError] = useState<unknown>();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api.patch(`/checklists/${encodeURIComponent(checklistId)}/items/${item.index}`, { status, notes });
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  const live = assessment?.items[item.index];
  return (
    <li className="card item">
      <h2 className="small-heading">
        {item.label} <StatusBadge status={item.status} /> {live && <span className="muted small">assessment: {live.status.replace(/_/g, ' ')}</span>}
      </h2>
      {live?.summary && <p>{live.summary}</p>}
      {assessment?.fields[item.index] && (
        <dl className="facts">
          {assessment.fields[item.index].map((f, i) => (
            <div key={i} className="fact">
              <dt>{f.field_name}</dt>
              <dd>
                {String(f.field_value)} <span className="muted small">({Math.round(f.confidence * 100)}% · {f.source})</span>
              </dd>
            </div>
          ))}
        </dl>
      )}
      {assessment?.tables[item.index] && <DataTable value={assessment.tables[item.index]} />}
      {assessment?.validations[item.index] && (
        <ul className="validations">
          {assessment.validations[item.index].map((v, i) => (
            <li key={i} className={v.passed ? 'ok' : `fail sev-${v.severity}`}>
              {v.passed ? '✓' : '✗'} {v.check_name}: {v.message}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={save} className="row">
        <label>
          Status
          <select value={status} disabled={!editable} onChange={(e) => setStatus(e.target.value)}>
            {['not_started', 'in_progress', 'complete', 'blocked'].map((s) => (
              <option key={s} value={s}>
                {s.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        <label className="grow">
          Notes
          <input value={notes} disabled={!editable} onChange={(e) => setNotes(e.target.value)} />
        </label>
        <button type="submit" disabled={!editable}>
          Save
        </button>
        <span className="muted small">{item.artifact_count} artifacts</span>
      </form>
      <ErrorText error={error} />
    </li>
  );
}
