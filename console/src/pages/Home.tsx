import { api, qs } from '../api';
import { can, Link, useMe } from '../router';
import { Day, ErrorText, Loading, Page, useLoad, When } from '../ui';
import { StatusBadge } from './Approvals';
import { entityPath, Outcome, type ChecklistSummary } from './Checklists';

interface QueueRow {
  approval_id: string;
  checkpoint_type: string;
  created_at: string;
  reviewer_id: string | null;
  escalated: boolean;
  subject?: null | {
    summary: string | null;
    entity: null | { name: string | null; id: string | null };
    form_label: string | null;
    form: string | null;
    period: string | null;
  };
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
    () =>
      reviewer
        ? api.get<{ approvals: QueueRow[]; total: number }>(`/approvals${qs({ status: 'pending', limit: 200 })}`)
        : Promise.resolve(null),
    [reviewer],
  );
  // The caller's own checklists, newest first: open ones, and what became of the ones decided lately.
  const checklists = useLoad(
    () =>
      api.get<{ checklists: ChecklistSummary[]; total: number }>(
        `/checklists${qs({ created_by: me.user_id, limit: 50 })}`,
      ),
    [me.user_id],
  );
  const summary = useLoad(
    () => (can(me, 'dashboards.read') ? api.get<Summary>('/compliance/summary') : Promise.resolve(null)),
    [],
  );
  const turns = useLoad(
    () =>
      can(me, 'conversations.use')
        ? api.get<{ conversations: ConversationRow[] }>('/conversations?limit=5')
        : Promise.resolve(null),
    [],
  );

  // Named to me, or to any reviewer; those named to someone else are theirs to decide.
  const waiting = (approvals.data?.approvals ?? []).filter(
    (a) => a.reviewer_id === null || a.reviewer_id === me.user_id,
  );
  const OPEN = ['in_progress', 'in_review', 'exception_requested'];
  const recent = Date.now() - 14 * 86_400_000;
  const mine = (checklists.data?.checklists ?? []).filter(
    (c) => OPEN.includes(c.status) || Date.parse(c.review?.reviewed_at ?? c.rejection?.rejected_at ?? '') > recent,
  );
  const returned = mine.filter((c) => c.status === 'in_progress' && c.review?.decision === 'rejected').length;

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
                    {a.subject?.summary ??
                      [
                        a.subject?.form_label ?? a.checkpoint_type.replace(/_/g, ' '),
                        a.subject?.entity?.name,
                        a.subject?.period,
                      ]
                        .filter(Boolean)
                        .join(' · ')}
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
          <h2 id="home-checklists">Your checklists ({checklists.data ? mine.length : '…'})</h2>
          {returned > 0 && (
            <p className="notice notice-bad" role="status">
              {returned === 1 ? '1 checklist was' : `${returned} checklists were`} returned for rework: see the
              reviewer's reason below.
            </p>
          )}
          <ErrorText error={checklists.error} />
          {checklists.loading && !checklists.data && <Loading what="checklists" />}
          {checklists.data && mine.length === 0 && (
            <p className="muted">No checklist of yours is open or was decided lately.</p>
          )}
          <ul className="plain-list">
            {mine.slice(0, 10).map((c) => (
              <li key={c.checklist_id}>
                <Link to={`/checklists/${c.checklist_id}`}>{c.title}</Link> <StatusBadge status={c.status} />{' '}
                <span className="muted small">
                  <Link to={entityPath(c.entity_type, c.entity_id)}>{c.entity_id}</Link>
                  {c.due_date && (
                    <>
                      {' '}
                      · due <Day day={c.due_date} />
                    </>
                  )}
                </span>
                <span className="block small">
                  <Outcome checklist={c} />
                </span>
              </li>
            ))}
          </ul>
          {mine.length > 10 && <Link to="/checklists">All your checklists</Link>}
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
