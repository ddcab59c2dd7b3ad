import { useEffect, useState, type FormEvent } from 'react';
import { api, qs } from '../api';
import { can, Link, useMe } from '../router';
import { DataTable, ErrorText, fieldError, humanize, Loading, Page, Person, useLoad, When } from '../ui';
import { Filings } from '../filings';

interface ApprovalSummary {
  approval_id: string;
  status: 'pending' | 'approved' | 'rejected' | 'modified';
  checkpoint_type: string;
  agent_type: string;
  created_at: string;
  reviewer_id: string | null;
  escalated: boolean;
  escalation_level: number;
  /** Entity, form and period of a filing approval (payload `kind: "filing"`); null otherwise. */
  subject?: null | {
    summary: string | null;
    entity: null | { id: string | null; type: string | null; name: string | null; api_number: string | null };
    form: string | null;
    form_label: string | null;
    period: string | null;
  };
}

/** The payload of an approval that asks to let something be filed (the shared contract). */
interface FilingPayload {
  kind: 'filing';
  summary?: string;
  entity?: { id?: string; type?: string; name?: string; api_number?: string | null } | null;
  form?: string;
  form_label?: string;
  period?: string | null;
  figures?: Array<{ label: string; value: number | string | null; unit?: string | null; source?: string | null }>;
  validations?: Array<{
    key: string;
    label: string;
    status: 'pass' | 'fail' | 'warn' | 'unknown';
    message?: string | null;
  }>;
  checklist_id?: string | null;
  conversation_id?: string | null;
  execution_id?: string | null;
}

const isFiling = (p: unknown): p is FilingPayload =>
  !!p && typeof p === 'object' && (p as { kind?: unknown }).kind === 'filing';

interface ApprovalDetail extends ApprovalSummary {
  conversation_id: string | null;
  payload: Record<string, unknown> | null;
  reviewer_strategy: string | null;
  requested_by: string | null;
  escalation: null | { level: number; reason: string; escalated_by: string; escalated_at: string };
  decision: null | {
    decision: string;
    reviewer_id: string;
    comments: string | null;
    modifications: Record<string, unknown> | null;
    justification?: string | null;
    overridden_validations?: string[];
    decided_at: string;
  };
}

const STATUSES = ['pending', 'approved', 'rejected', 'modified'] as const;

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{status.replace(/_/g, ' ')}</span>;
}

export function ApprovalsPage() {
  const [status, setStatus] = useState<string>('pending');
  const [escalated, setEscalated] = useState<string>('');
  const [agentType, setAgentType] = useState('');
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const { data, error, loading } = useLoad(
    () =>
      api.get<{ approvals: ApprovalSummary[]; total: number }>(
        `/approvals${qs({ status, escalated, agent_type: agentType.trim() || undefined, limit, offset })}`,
      ),
    [status, escalated, agentType, offset],
  );
  return (
    <Page title="Approvals">
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter approvals">
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
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Escalated
          <select
            value={escalated}
            onChange={(e) => {
              setEscalated(e.target.value);
              setOffset(0);
            }}
          >
            <option value="">Any</option>
            <option value="true">Escalated only</option>
            <option value="false">Not escalated</option>
          </select>
        </label>
        <label>
          Agent type
          <input
            value={agentType}
            onChange={(e) => {
              setAgentType(e.target.value);
              setOffset(0);
            }}
            placeholder="e.g. general"
          />
        </label>
      </form>
      <ErrorText error={error} />
      {loading && !data ? (
        <Loading what="approvals" />
      ) : data && data.approvals.length === 0 ? (
        <p className="muted">No approvals match these filters.</p>
      ) : data ? (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Approvals, {status || 'all statuses'}</caption>
              <thead>
                <tr>
                  <th scope="col">Checkpoint</th>
                  <th scope="col">Entity</th>
                  <th scope="col">Form</th>
                  <th scope="col">Period</th>
                  <th scope="col">Status</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Requested</th>
                  <th scope="col">Reviewer</th>
                  <th scope="col">Escalation</th>
                </tr>
              </thead>
              <tbody>
                {data.approvals.map((a) => (
                  <tr key={a.approval_id}>
                    <td>
                      <Link to={`/approvals/${a.approval_id}`}>{a.checkpoint_type.replace(/_/g, ' ')}</Link>
                    </td>
                    <td>
                      {a.subject?.entity ? <EntityName entity={a.subject.entity} /> : <span className="muted">—</span>}
                    </td>
                    <td>{a.subject?.form_label ?? a.subject?.form ?? <span className="muted">—</span>}</td>
                    <td>{a.subject?.period ?? <span className="muted">—</span>}</td>
                    <td>
                      <StatusBadge status={a.status} />
                    </td>
                    <td>{a.agent_type}</td>
                    <td>
                      <When at={a.created_at} />
                    </td>
                    <td>
                      {a.reviewer_id ? <Person id={a.reviewer_id} /> : <span className="muted">any reviewer</span>}
                    </td>
                    <td>{a.escalated ? `level ${a.escalation_level}` : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager offset={offset} limit={limit} total={data.total} onChange={setOffset} />
        </>
      ) : null}
    </Page>
  );
}

export function Pager({
  offset,
  limit,
  total,
  onChange,
}: {
  offset: number;
  limit: number;
  total: number;
  onChange: (offset: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span>
        {total === 0 ? 0 : offset + 1}–{Math.min(offset + limit, total)} of {total}
      </span>
      <button type="button" disabled={offset + limit >= total} onClick={() => onChange(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

export function ApprovalDetailPage({ id }: { id: string }) {
  const me = useMe();
  const { data, error, loading, reload } = useLoad(
    () => api.get<ApprovalDetail>(`/approvals/${encodeURIComponent(id)}`),
    [id],
  );
  return (
    <Page title="Approval">
      <p>
        <Link to="/approvals">← Back to the queue</Link>
      </p>
      <ErrorText error={error} />
      {loading && !data && <Loading what="the approval" />}
      {data && (
        <div className="columns">
          <div className="card">
            <h2>
              {humanize(data.checkpoint_type)} <StatusBadge status={data.status} />
            </h2>
            <dl className="facts">
              <dt>Agent</dt>
              <dd>{data.agent_type}</dd>
              <dt>Requested</dt>
              <dd>
                <When at={data.created_at} /> by <Person id={data.requested_by} fallback="the system" />
              </dd>
              <dt>Reviewer</dt>
              <dd>
                {data.reviewer_id ? (
                  <Person id={data.reviewer_id} />
                ) : (
                  `any reviewer (${data.reviewer_strategy ?? 'default'})`
                )}
              </dd>
              {data.conversation_id && (
                <>
                  <dt>Conversation</dt>
                  <dd>
                    <Link to={`/chat/${data.conversation_id}`}>Open the conversation</Link>
                  </dd>
                </>
              )}
              {data.escalation && (
                <>
                  <dt>Escalated</dt>
                  <dd>
                    level {data.escalation.level}: {data.escalation.reason} — by{' '}
                    <Person id={data.escalation.escalated_by} />, <When at={data.escalation.escalated_at} />
                  </dd>
                </>
              )}
            </dl>
            {isFiling(data.payload) ? (
              <Filing payload={data.payload} />
            ) : (
              <>
                <h3>Payload</h3>
                <Payload value={data.payload} />
              </>
            )}
          </div>
          <div className="card">
            {data.decision ? (
              <section aria-labelledby="decision-title">
                <h2 id="decision-title">Decision</h2>
                <p className="decision">
                  <StatusBadge status={data.decision.decision} /> by{' '}
                  <strong>
                    <Person id={data.decision.reviewer_id} />
                  </strong>{' '}
                  on <When at={data.decision.decided_at} />
                </p>
                {data.decision.comments && (
                  <>
                    <h3>{data.decision.decision === 'rejected' ? 'Reason' : 'Comments'}</h3>
                    <blockquote>{data.decision.comments}</blockquote>
                  </>
                )}
                {data.decision.justification && (
                  <>
                    <h3>Justification for approving over failed validations</h3>
                    {(data.decision.overridden_validations ?? []).length > 0 && (
                      <p className="small">
                        Failed checks approved over:{' '}
                        {validationLabels(data.payload, data.decision.overridden_validations ?? []).join(', ')}
                      </p>
                    )}
                    <blockquote>{data.decision.justification}</blockquote>
                  </>
                )}
                {data.decision.modifications && (
                  <>
                    <h3>Modifications</h3>
                    <Payload value={data.decision.modifications} />
                  </>
                )}
                <WhatNext approval={data} />
              </section>
            ) : can(me, 'hitl.approve') ? (
              <>
                {data.requested_by === me.user_id && (
                  <p className="notice" role="note">
                    You asked for this approval. The four-eyes rule lets another reviewer decide it.
                  </p>
                )}
                <DecideForm approval={data} onDone={reload} />
                <EscalateForm id={data.approval_id} onDone={reload} />
              </>
            ) : (
              <p className="muted">Awaiting a reviewer. Your roles cannot decide approvals.</p>
            )}
            {data.status !== 'pending' && isFiling(data.payload) && <Filings approvalId={data.approval_id} />}
          </div>
        </div>
      )}
    </Page>
  );
}

function EntityName({
  entity,
}: {
  entity: { id?: string | null; type?: string | null; name?: string | null; api_number?: string | null };
}) {
  const name = entity.name ?? entity.id ?? 'unnamed';
  return (
    <>
      {entity.type && <span className="muted">{entity.type} </span>}
      {name}
      {entity.api_number && <span className="muted"> (API {entity.api_number})</span>}
    </>
  );
}

const VALIDATION_MARK: Record<string, string> = { pass: '✓', fail: '✗', warn: '!', unknown: '?' };

/** A filing approval: what would be filed, its figures with their sources, and the checks run on them. */
function Filing({ payload }: { payload: FilingPayload }) {
  const entity = payload.entity;
  const figures = payload.figures ?? [];
  const validations = payload.validations ?? [];
  return (
    <section aria-labelledby="filing-title">
      <h3 id="filing-title">What would be filed</h3>
      {payload.summary && <p className="filing-summary">{payload.summary}</p>}
      <dl className="facts">
        <dt>Entity</dt>
        <dd>
          {entity ? (
            entity.id && entity.type ? (
              <Link to={`/graph/${encodeURIComponent(entity.type)}/${encodeURIComponent(entity.id)}`}>
                <EntityName entity={entity} />
              </Link>
            ) : (
              <EntityName entity={entity} />
            )
          ) : (
            <span className="muted">—</span>
          )}
        </dd>
        <dt>Form</dt>
        <dd>{payload.form_label ?? payload.form ?? '—'}</dd>
        <dt>Period</dt>
        <dd>{payload.period ?? '—'}</dd>
        {payload.checklist_id && (
          <>
            <dt>Checklist</dt>
            <dd>
              <Link to={`/checklists/${encodeURIComponent(payload.checklist_id)}`}>Open the checklist</Link>
            </dd>
          </>
        )}
        {payload.conversation_id && (
          <>
            <dt>Conversation</dt>
            <dd>
              <Link to={`/chat/${encodeURIComponent(payload.conversation_id)}`}>Open the conversation that asked</Link>
            </dd>
          </>
        )}
      </dl>
      <div className="table-wrap">
        <table>
          <caption>Figures</caption>
          <thead>
            <tr>
              <th scope="col">Figure</th>
              <th scope="col" className="num">
                Value
              </th>
              <th scope="col">Unit</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {figures.length === 0 && (
              <tr>
                <td colSpan={4} className="muted">
                  No figures were given.
                </td>
              </tr>
            )}
            {figures.map((f, i) => (
              <tr key={`${f.label}-${i}`}>
                <th scope="row">{f.label}</th>
                <td className="num">
                  {f.value === null || f.value === undefined ? (
                    <span className="muted">missing</span>
                  ) : typeof f.value === 'number' ? (
                    f.value.toLocaleString()
                  ) : (
                    String(f.value)
                  )}
                </td>
                <td>{f.unit ?? ''}</td>
                <td>
                  <SourceRef source={f.source} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Validations</h3>
      {validations.length === 0 ? (
        <p className="muted">No validations were run.</p>
      ) : (
        <ul className="validations" aria-label="Validations">
          {validations.map((v) => (
            <li key={v.key} className={`validation validation-${v.status}`}>
              <span className={`badge badge-${v.status}`}>
                <span aria-hidden="true">{VALIDATION_MARK[v.status] ?? '?'} </span>
                {v.status}
              </span>{' '}
              <strong>{v.label}</strong>
              {v.message && <span>: {v.message}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** `graph:Well/<id>` links to the entity page; other sources are shown as written. */
function SourceRef({ source }: { source: string | null | undefined }) {
  if (!source) return <span className="muted">—</span>;
  const m = /^graph:([^/]+)\/(.+)$/.exec(source);
  if (m) return <Link to={`/graph/${encodeURIComponent(m[1])}/${encodeURIComponent(m[2])}`}>{source}</Link>;
  return <code>{source}</code>;
}

function Payload({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <p className="muted">No payload.</p>;
  if (typeof value === 'object' && !Array.isArray(value)) {
    return (
      <dl className="facts">
        {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
          <div key={k} className="fact">
            <dt>{k}</dt>
            <dd>
              {v !== null && typeof v === 'object' ? (
                Array.isArray(v) && v.every((x) => x && typeof x === 'object') ? (
                  <DataTable value={v} />
                ) : (
                  <pre className="json">{JSON.stringify(v, null, 2)}</pre>
                )
              ) : (
                String(v)
              )}
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}

const DECISION_LABEL = { approved: 'Approve', rejected: 'Reject', modified: 'Approve with modifications' } as const;

/** The labels of a filing's validations by key (the decision records keys). */
function validationLabels(payload: unknown, keys: string[]): string[] {
  const validations = isFiling(payload) ? (payload.validations ?? []) : [];
  return keys.map((k) => validations.find((v) => v.key === k)?.label ?? k);
}

/**
 * What the reviewer can change when approving with modifications, as fields: a filing's
 * figures (a number field each), otherwise the payload's plain values. Only the changed ones
 * are sent: `{figures: {<label>: value}}` for a filing, `{<key>: value}` otherwise.
 */
function editableFields(
  payload: Record<string, unknown> | null,
): Array<{ key: string; label: string; original: unknown; numeric: boolean; unit?: string | null }> {
  if (isFiling(payload))
    return (payload.figures ?? []).map((f) => ({
      key: f.label,
      label: f.label,
      original: f.value,
      numeric: typeof f.value === 'number' || f.value === null,
      unit: f.unit,
    }));
  return Object.entries(payload ?? {})
    .filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    .map(([k, v]) => ({ key: k, label: k.replace(/_/g, ' '), original: v, numeric: typeof v === 'number' }));
}

function modificationsFrom(
  payload: Record<string, unknown> | null,
  edits: Record<string, string>,
): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const field of editableFields(payload)) {
    const text = edits[field.key];
    if (
      text === undefined ||
      text === (field.original === null || field.original === undefined ? '' : String(field.original))
    )
      continue;
    changed[field.key] = field.numeric && text.trim() !== '' && !Number.isNaN(Number(text)) ? Number(text) : text;
  }
  return isFiling(payload) ? (Object.keys(changed).length ? { figures: changed } : {}) : changed;
}

/**
 * A decision a reviewer has to choose (nothing is preselected). A rejection needs a reason;
 * approving a filing whose validations failed needs a justification, recorded with the
 * decision; modifications are edited as fields. The API enforces the same rules.
 */
function DecideForm({ approval, onDone }: { approval: ApprovalDetail; onDone: () => void }) {
  const id = approval.approval_id;
  const [decision, setDecision] = useState<'approved' | 'rejected' | 'modified' | null>(null);
  const [comments, setComments] = useState('');
  const [justification, setJustification] = useState('');
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const failed = isFiling(approval.payload)
    ? (approval.payload.validations ?? []).filter((v) => v.status === 'fail')
    : [];
  const warned = isFiling(approval.payload)
    ? (approval.payload.validations ?? []).filter((v) => v.status === 'warn')
    : [];
  const approving = decision === 'approved' || decision === 'modified';
  const fields = editableFields(approval.payload);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    if (!decision) return setError(new Error('Choose a decision: approve, reject, or approve with modifications.'));
    if (decision === 'rejected' && !comments.trim())
      return setError(new Error('Give the reason for the rejection: the submitter reworks from it.'));
    if (approving && failed.length > 0 && !justification.trim())
      return setError(new Error('Say why this can be approved although validations failed.'));
    const modifications = decision === 'modified' ? modificationsFrom(approval.payload, edits) : undefined;
    if (modifications && Object.keys(modifications).length === 0)
      return setError(new Error('Change at least one value, or choose "Approve".'));
    setBusy(true);
    try {
      await api.post(`/approvals/${encodeURIComponent(id)}/decide`, {
        decision,
        ...(comments.trim() ? { comments } : {}),
        ...(approving && justification.trim() ? { justification } : {}),
        ...(modifications ? { modifications } : {}),
      });
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const describedBy = error ? 'decide-error' : undefined;
  return (
    <form onSubmit={submit} aria-labelledby="decide-title" noValidate>
      <h2 id="decide-title">Decide</h2>
      {(failed.length > 0 || warned.length > 0) && (
        <div className="notice" role="note">
          {failed.length > 0 && (
            <p>
              <strong>{failed.length === 1 ? '1 validation failed' : `${failed.length} validations failed`}:</strong>{' '}
              {failed.map((v) => v.label).join(', ')}. Approving needs a justification.
            </p>
          )}
          {warned.length > 0 && (
            <p>
              <strong>{warned.length === 1 ? '1 warning' : `${warned.length} warnings`}:</strong>{' '}
              {warned.map((v) => v.label).join(', ')}.
            </p>
          )}
        </div>
      )}
      <fieldset>
        <legend>Decision (choose one)</legend>
        {(['approved', 'rejected', 'modified'] as const).map((d) => (
          <label key={d} className="inline">
            <input
              type="radio"
              name="decision"
              value={d}
              checked={decision === d}
              onChange={() => {
                setDecision(d);
                setError(undefined);
              }}
            />{' '}
            {DECISION_LABEL[d]}
          </label>
        ))}
      </fieldset>
      {decision === 'modified' && (
        <fieldset className="modifications">
          <legend>Modifications: change the values to file</legend>
          {fields.length === 0 && <p className="muted">This request has no values to change; approve or reject it.</p>}
          {fields.map((f) => (
            <label key={f.key}>
              {f.label}
              {f.unit ? ` (${f.unit})` : ''}
              <input
                type={f.numeric ? 'number' : 'text'}
                step="any"
                value={edits[f.key] ?? (f.original === null || f.original === undefined ? '' : String(f.original))}
                onChange={(e) => setEdits((x) => ({ ...x, [f.key]: e.target.value }))}
              />
              <span className="muted small">
                was {f.original === null || f.original === undefined ? 'missing' : String(f.original)}
              </span>
            </label>
          ))}
          {fieldError(error, 'modifications') && <p className="error">{fieldError(error, 'modifications')}</p>}
        </fieldset>
      )}
      {approving && failed.length > 0 && (
        <label>
          Justification for approving over the failed validations (required)
          <textarea
            rows={3}
            required
            value={justification}
            onChange={(e) => setJustification(e.target.value)}
            aria-describedby={describedBy}
          />
        </label>
      )}
      <label>
        {decision === 'rejected' ? 'Reason for the rejection (required)' : 'Comments (optional)'}
        <textarea
          rows={3}
          required={decision === 'rejected'}
          value={comments}
          onChange={(e) => setComments(e.target.value)}
          aria-describedby={describedBy}
        />
      </label>
      <ErrorText error={error} id="decide-error" />
      <button type="submit" disabled={busy}>
        {busy ? 'Recording…' : decision ? `Record decision: ${DECISION_LABEL[decision]}` : 'Record decision'}
      </button>
    </form>
  );
}

interface ChecklistOutcome {
  checklist_id: string;
  title: string;
  status: string;
  review: null | { decision: string; comments: string | null };
}

/** After a decision: where the work went (the checklist returned for rework, or the filing recorded). */
function WhatNext({ approval }: { approval: ApprovalDetail }) {
  const checklistId = isFiling(approval.payload)
    ? approval.payload.checklist_id
    : typeof approval.payload?.checklist_id === 'string'
      ? approval.payload.checklist_id
      : null;
  const [checklist, setChecklist] = useState<ChecklistOutcome | null>(null);
  useEffect(() => {
    if (!checklistId) return;
    api
      .get<ChecklistOutcome>(`/checklists/${encodeURIComponent(checklistId)}`)
      .then(setChecklist, () => setChecklist(null));
  }, [checklistId]);
  const decision = approval.decision?.decision;
  return (
    <>
      <h3>What happens next</h3>
      <p>
        {decision === 'rejected'
          ? 'The request goes back to whoever asked, with the reason above.'
          : approval.conversation_id
            ? 'The paused conversation continues with this decision.'
            : 'The decision is recorded; nothing else waits on it.'}
      </p>
      {checklist && (
        <p>
          Checklist <Link to={`/checklists/${encodeURIComponent(checklist.checklist_id)}`}>{checklist.title}</Link> is
          now <StatusBadge status={checklist.status} />
          {checklist.status === 'in_progress' && decision === 'rejected'
            ? ': returned to its submitter for rework.'
            : checklist.status === 'approved'
              ? ': the filing is recorded on the entity.'
              : '.'}
        </p>
      )}
    </>
  );
}

function EscalateForm({ id, onDone }: { id: string; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api.post('/approvals/escalate', { approval_id: id, reason });
      setReason('');
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="escalate-title" className="secondary-form">
      <h3 id="escalate-title">Escalate</h3>
      <label>
        Reason
        <input value={reason} required onChange={(e) => setReason(e.target.value)} />
      </label>
      <ErrorText error={error} />
      <button type="submit" className="secondary">
        Escalate
      </button>
    </form>
  );
}
