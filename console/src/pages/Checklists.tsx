import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, qs } from '../api';
import { can, Link, navigate, useLocation, useMe } from '../router';
import { DataTable, Day, ErrorText, fieldError, Loading, Page, Person, useLoad, When } from '../ui';
import { Pager, StatusBadge } from './Approvals';

interface Template {
  template_id: string;
  title: string;
  form: string;
  entity_type: string;
  entity_types?: string[];
}
export interface ChecklistSummary {
  checklist_id: string;
  title: string;
  form: string;
  entity_id: string;
  entity_type?: string;
  status: string;
  due_date: string | null;
  period: string | null;
  created_by?: string;
  review?: null | {
    approval_id: string;
    decision: string;
    reviewer_id: string;
    comments: string | null;
    reviewed_at: string;
  };
  rejection?: null | { reason: string; rejected_by: string; rejected_at: string };
}

/** The entity page of a checklist's well or lease (the graph's label, e.g. `Lease`). */
export const entityPath = (type: string | undefined, id: string) =>
  `/graph/${encodeURIComponent(type ?? 'Well')}/${encodeURIComponent(id)}`;

/**
 * Why a checklist is where it is, in a sentence: returned by a reviewer (with the reason),
 * rejected outright, approved. Null while nothing has been decided.
 */
export function Outcome({ checklist }: { checklist: ChecklistSummary }) {
  const { review, rejection, status } = checklist;
  if (status === 'rejected' && rejection)
    return (
      <span className="outcome outcome-rejected">
        Rejected by <Person id={rejection.rejected_by} /> on <When at={rejection.rejected_at} />:{' '}
        <q>{rejection.reason}</q>
      </span>
    );
  if (!review) return null;
  if (review.decision === 'rejected' && status === 'in_progress')
    return (
      <span className="outcome outcome-rejected">
        Returned for rework by <Person id={review.reviewer_id} /> on <When at={review.reviewed_at} />
        {review.comments ? (
          <>
            : <q>{review.comments}</q>
          </>
        ) : (
          '.'
        )}
      </span>
    );
  if (status === 'approved' || status === 'exception_granted')
    return (
      <span className="outcome outcome-approved">
        {status === 'approved' ? 'Approved' : 'Exception granted'}
        {review.decision === 'modified' ? ' with modifications' : ''} by <Person id={review.reviewer_id} /> on{' '}
        <When at={review.reviewed_at} />
        {status === 'approved' ? '; the filing is recorded on the entity.' : '.'}
        {review.comments ? (
          <>
            {' '}
            <q>{review.comments}</q>
          </>
        ) : null}
      </span>
    );
  return null;
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
  const me = useMe();
  const { search } = useLocation();
  const [status, setStatus] = useState('');
  const [mine, setMine] = useState(false);
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const list = useLoad(
    () =>
      api.get<{ checklists: ChecklistSummary[]; total: number }>(
        `/checklists${qs({ status, created_by: mine ? me.user_id : undefined, limit, offset })}`,
      ),
    [status, mine, offset],
  );
  const templates = useLoad(() => api.get<{ templates: Template[] }>('/checklists/templates'), []);
  // A link from an entity page ("Start checklist") arrives with the form and the entity filled in.
  const [templateId, setTemplateId] = useState(search.get('template') ?? '');
  const [entityType, setEntityType] = useState(search.get('entity_type') ?? 'Well');
  const [entityId, setEntityId] = useState(search.get('entity_id') ?? '');
  const [error, setError] = useState<unknown>();
  const template = templates.data?.templates.find((t) => t.template_id === templateId);
  const types = template?.entity_types ?? (template ? [template.entity_type] : ['Well']);
  const typesKey = types.join(',');
  useEffect(() => {
    const offered = typesKey.split(',');
    if (!offered.includes(entityType)) setEntityType(offered[0]);
  }, [typesKey, entityType]);
  const candidates = useLoad(
    () =>
      api
        .get<{ entities: Array<{ entity_id: string; properties?: Record<string, unknown> }> }>(
          `/graph/entities/${encodeURIComponent(entityType)}?limit=200`,
        )
        .catch(() => ({ entities: [] })),
    [entityType],
  );
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const created = await api.post<{ checklist_id: string }>('/checklists', {
        template_id: templateId,
        entity_type: entityType,
        entity_id: entityId.trim(),
      });
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
          <select
            required
            value={templateId}
            onChange={(e) => setTemplateId(e.target.value)}
            aria-invalid={!!fieldError(error, 'template_id')}
          >
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
          Entity type
          <select
            value={entityType}
            onChange={(e) => {
              setEntityType(e.target.value);
              setEntityId('');
            }}
            disabled={types.length < 2}
            aria-invalid={!!fieldError(error, 'entity_type')}
          >
            {types.map((t) => (
              <option key={t} value={t}>
                {t.toLowerCase()}
              </option>
            ))}
          </select>
          {fieldError(error, 'entity_type') && <span className="error">{fieldError(error, 'entity_type')}</span>}
        </label>
        <label>
          {entityType} (name or ID)
          <input
            required
            list="checklist-entities"
            value={entityId}
            onChange={(e) => setEntityId(e.target.value)}
            placeholder={entityType === 'Lease' ? 'lease ID' : 'API number'}
            aria-invalid={!!fieldError(error, 'entity_id')}
          />
          <datalist id="checklist-entities">
            {(candidates.data?.entities ?? []).map((v) => (
              <option key={v.entity_id} value={v.entity_id}>
                {String(v.properties?.name ?? v.entity_id)}
              </option>
            ))}
          </datalist>
          {fieldError(error, 'entity_id') && <span className="error">{fieldError(error, 'entity_id')}</span>}
        </label>
        <button type="submit">Start checklist</button>
        {!fieldError(error, 'template_id') && !fieldError(error, 'entity_id') && !fieldError(error, 'entity_type') && (
          <ErrorText error={error} />
        )}
      </form>
      <div className="filters">
        <label className="inline-field">
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value);
              setOffset(0);
            }}
          >
            <option value="">Any</option>
            {['in_progress', 'in_review', 'exception_requested', 'approved', 'exception_granted', 'rejected'].map(
              (s) => (
                <option key={s} value={s}>
                  {s.replace(/_/g, ' ')}
                </option>
              ),
            )}
          </select>
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={mine}
            onChange={(e) => {
              setMine(e.target.checked);
              setOffset(0);
            }}
          />{' '}
          Only checklists I started
        </label>
      </div>
      <ErrorText error={list.error ?? templates.error} />
      {list.loading && !list.data && <Loading what="checklists" />}
      {list.data && (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Checklists</caption>
              <thead>
                <tr>
                  <th scope="col">Checklist</th>
                  <th scope="col">Entity</th>
                  <th scope="col">Status</th>
                  <th scope="col">Period</th>
                  <th scope="col">Due</th>
                  <th scope="col">Started by</th>
                </tr>
              </thead>
              <tbody>
                {list.data.checklists.map((c) => (
                  <tr key={c.checklist_id}>
                    <td>
                      <Link to={`/checklists/${c.checklist_id}`}>{c.title}</Link>
                      <span className="block small">
                        <Outcome checklist={c} />
                      </span>
                    </td>
                    <td>
                      <Link to={entityPath(c.entity_type, c.entity_id)}>{c.entity_id}</Link>{' '}
                      <span className="muted small">{(c.entity_type ?? 'Well').toLowerCase()}</span>
                    </td>
                    <td>
                      <StatusBadge status={c.status} />
                    </td>
                    <td>{c.period ?? ''}</td>
                    <td>
                      <Day day={c.due_date} />
                    </td>
                    <td>
                      <Person id={c.created_by} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {list.data.checklists.length === 0 && <p className="muted">No checklists match.</p>}
          </div>
          <Pager offset={offset} limit={limit} total={list.data.total} onChange={setOffset} />
        </>
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
    const es = new EventSource(`/api/v1/workspaces/${encodeURIComponent(id)}/stream${rerun ? '?rerun=true' : ''}`, {
      withCredentials: true,
    });
    source.current = es;
    const on = (name: string, apply: (d: Record<string, any>) => void) =>
      es.addEventListener(name, (ev) => {
        apply(JSON.parse((ev as MessageEvent).data));
        setAssessment({
          ...state,
          fields: { ...state.fields },
          validations: { ...state.validations },
          tables: { ...state.tables },
          items: { ...state.items },
        });
      });
    on('agent_status', (d) => {
      state.state = d.state;
      state.message = d.message ?? '';
    });
    on('checklist_item_update', (d) => {
      state.items[d.item_index] = { status: d.status, summary: d.summary };
    });
    on('form_field_update', (d) => {
      (state.fields[d.item_index] ??= []).push(d as never);
    });
    on('validation_result', (d) => {
      (state.validations[d.item_index] ??= []).push(d as never);
    });
    on('data_table_update', (d) => {
      state.tables[d.item_index] = { columns: d.columns, rows: d.rows };
    });
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
            <StatusBadge status={c.status} /> {c.form} for {(c.entity_type ?? 'Well').toLowerCase()}{' '}
            <Link to={entityPath(c.entity_type, c.entity_id)}>{c.entity_id}</Link>
            {c.period && ` · period ${c.period}`}
            {c.due_date && (
              <>
                {' '}
                · due <Day day={c.due_date} />
              </>
            )}{' '}
            · started by <Person id={c.created_by} /> · updated <When at={c.updated_at} />
            {c.pending_approval_id && (
              <>
                {' '}
                · <Link to={`/approvals/${c.pending_approval_id}`}>pending approval</Link>
              </>
            )}
          </p>
          {(c.review || c.rejection) && (
            <p
              className={`notice outcome-notice ${c.review?.decision === 'rejected' || c.rejection ? 'notice-bad' : 'notice-good'}`}
              role="status"
            >
              <Outcome checklist={c} />
              {c.review && (
                <>
                  {' '}
                  <Link to={`/approvals/${c.review.approval_id}`}>Open the decision</Link>
                </>
              )}
            </p>
          )}
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
          {submitError &&
            Array.isArray((submitError as { body?: { incomplete_items?: unknown[] } }).body?.incomplete_items) && (
              <ul className="error">
                {(
                  submitError as { body: { incomplete_items: Array<{ index: number; label: string; status: string }> } }
                ).body.incomplete_items.map((i) => (
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
              <ItemView
                key={item.index}
                checklistId={c.checklist_id}
                item={item}
                editable={c.status === 'in_progress'}
                assessment={assessment}
                onSaved={checklist.reload}
              />
            ))}
          </ol>
        </>
      )}
    </Page>
  );
}

function ItemView({
  checklistId,
  item,
  editable,
  assessment,
  onSaved,
}: {
  checklistId: string;
  item: Item;
  editable: boolean;
  assessment: Assessment | null;
  onSaved: () => void;
}) {
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
        {item.label} <StatusBadge status={item.status} />{' '}
        {live && <span className="muted small">assessment: {live.status.replace(/_/g, ' ')}</span>}
      </h2>
      {live?.summary && <p>{live.summary}</p>}
      {assessment?.fields[item.index] && (
        <dl className="facts">
          {assessment.fields[item.index].map((f, i) => (
            <div key={i} className="fact">
              <dt>{f.field_name}</dt>
              <dd>
                {String(f.field_value)}{' '}
                <span className="muted small">
                  ({Math.round(f.confidence * 100)}% · {f.source})
                </span>
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
