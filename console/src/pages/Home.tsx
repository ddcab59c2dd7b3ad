import { api, qs } from '../api';
import { can, Link, useMe } from '../router';
import { ErrorText, Loading, Page, useLoad, When } from '../ui';
import { StatusBadge } from './Approvals';

interface QueueRow {
  approval_id: string;
  checkpoint_type: string;
  created_at: string;
  reviewer_id: string | null;
  escalated: boolean;
  subject?: null | { summary: string | null; entity: null | { name: string | null; id: string | null }; form_label: string | null; form: string | null; period: string | null };
}
interface ChecklistRow {
  checklist_id: string;
  title: string;
  form: string;
  entity_id: string;
  status: string;
  due_date: string | null;
  period: string | null;
  created_by?: string | null;
}
interface Summary {
  overdue_count: number;
  due_7_days_count: number;
}
interface ConversationRow {
  id: string;
  title: string;
  preview: string | null;
  last_message_at: string | null;
  created_at: string;
}

/** The signed-in user's start page: what needs them today, each list linking to where the work is done. */
export function HomePage() {
  const me = useMe();
  const reviewer = can(me, 'hitl.approve');
  const approvals = useLoad(
    () => (reviewer ? api.get<{ approvals: QueueRow[]; total: number }>(`/approvals${qs({ status: 'pending', limit: 200 })}`) : Promise.resolve(null)),
    [reviewer],
  );
  const checklists = useLoad(() => api.get<{ checklists: ChecklistRow[]; total: number }>(`/checklists${qs({ status: 'in_progress', limit: 200 })}`), []);
  const summary = useLoad(() => (can(me, 'dashboards.read') ? api.get<Summary>('/compliance/summary') : Promise.resolve(null)), []);
  const turns = useLoad(() => (can(me, 'conversations.use') ? api.get<{ conversations: ConversationRow[] }>('/conversations?limit=5') : Promise.resolve(null)), []);

  // Named to me, or to any reviewer; those named to someone else are theirs to decide.
  const waiting = (approvals.data?.approvals ?? []).filter((a) => a.reviewer_id === null || a.reviewer_id === me.user_id);
  const mine = (checklists.data?.checklists ?? []).filter((c) => !c.created_by || c.created_by === me.user_id);

  return (
    <Page title={`Good day, ${me.display_name ?? me.email}`}>
      {summary.data && (
        <ul className="cards plain-cards" aria-label="Deadlines">
          <li>
            <Link className="summary-card bucket-overdue" to="/compliance?bucket=overdue">
              <span className="count">{summary.data.overdue_count}</span>
              <span>Overdue</span>
              <span className="delta">Open in the compliance matrix</span>
            </Link>
          </li>
          <li>
            <Link className="summary-card bucket-due_7d" to="/compliance?bucket=due_7d">
              <span className="count">{summary.data.due_7_days_count}</span>
              <span>Due this week</span>
              <span className="delta">Open in the compliance matrix</span>
            </Link>
          </li>
        </ul>
      )}
      <ErrorText error={summary.error} />
      <div className="home-grid">
        {reviewer && (
          <section className="card" aria-labelledby="home-approvals">
            <h2 id="home-approvals">Approvals waiting for you ({approvals.data ? waiting.length : '…'})</h2>
            <ErrorText error={approvals.error} />
            {approvals.loading && !approvals.data && <Loading what="approvals" />}
            {approvals.data && waiting.length === 0 && <p className="muted">Nothing is waiting for your review.</p>}
            <ul className="plain-list">
              {waiting.slice(0, 10).map((a) => (
                <li key={a.approval_id}>
                  <Link to={`/approvals/${a.approval_id}`}>
                    {a.subject?.summary ?? [a.subject?.form_label ?? a.checkpoint_type.replace(/_/g, ' '), a.subject?.entity?.name, a.subject?.period].filter(Boolean).join(' · ')}
                  </Link>{' '}
                  {a.escalated && <span className="badge badge-warn">escalated</span>}{' '}
                  <span className="muted small">
                    <When at={a.created_at} />
                  </span>
                </li>
              ))}
            </ul>
            {waiting.length > 10 && <Link to="/approvals">All {waiting.length} in the queue</Link>}
          </section>
        )}
        <section className="card" aria-labelledby="home-checklists">
          <h2 id="home-checklists">Your checklists in progress ({checklists.data ? mine.length : '…'})</h2>
          <ErrorText error={checklists.error} />
          {checklists.loading && !checklists.data && <Loading what="checklists" />}
          {checklists.data && mine.length === 0 && <p className="muted">No checklist of yours is in progress.</p>}
          <ul className="plain-list">
            {mine.slice(0, 10).map((c) => (
              <li key={c.checklist_id}>
                <Link to={`/checklists/${c.checklist_id}`}>{c.title}</Link> <StatusBadge status={c.status} />{' '}
                <span className="muted small">
                  {c.entity_id}
                  {c.due_date ? ` · due ${c.due_date}` : ''}
                </span>
              </li>
            ))}
          </ul>
        </section>
        {turns.data && (
          <section className="card" aria-labelledby="home-turns">
            <h2 id="home-turns">Recent conversations</h2>
            <ErrorText error={turns.error} />
            {turns.data.conversations.length === 0 && <p className="muted">No conversations yet.</p>}
            <ul className="plain-list">
              {turns.data.conversations.map((c) => (
                <li key={c.id}>
                  <Link to={`/chat/${c.id}`}>{c.title}</Link>{' '}
                  <span className="muted small">
                    <When at={c.last_message_at ?? c.created_at} />
                  </span>
                  {c.preview && <span className="block muted small">{c.preview.slice(0, 160)}</span>}
                </li>
              ))}
            </ul>
          </section>
        )}
      </div>
    </Page>
  );
}
