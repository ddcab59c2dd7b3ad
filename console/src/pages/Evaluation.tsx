import { useState, type FormEvent } from 'react';
import { api, ApiError, qs } from '../api';
import { can, Link, useMe } from '../router';
import { DataTable, ErrorText, Loading, Page, useAction, useLoad, When } from '../ui';
import { Pager, StatusBadge } from './Approvals';

interface Run {
  id: string;
  tag: string | null;
  model_id: string;
  status: string;
  replay: string;
  is_baseline: boolean;
  judge_threshold: number;
  n_cases: number;
  n_pass: number;
  n_fail: number;
  n_degraded: number;
  tokens_used: number | null;
  cost_usd: number | null;
  started_at: string;
  completed_at: string | null;
}
interface CaseResult {
  case_source: string;
  case_ref: string;
  execution_id: string | null;
  grader: string;
  verdict: string;
  judge_score: number | null;
  violations: unknown;
}
interface Capture {
  execution_id: string;
  score: number;
  expected_output: string | null;
  note: string | null;
  category_tag: string | null;
  snapshot_status: string;
  mirror_status: string;
}

const passRate = (r: Run) => (r.n_cases ? `${((r.n_pass / r.n_cases) * 100).toFixed(1)}%` : '—');

export function EvaluationPage() {
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const metrics = useLoad(
    () => api.get<{ total: number; missing: number; mirror_failed: number; mirror_pending: number }>('/eval/metrics'),
    [],
  );
  // The API pages by `limit` only (newest first): the page is cut from the newest `offset + limit`.
  const runs = useLoad(
    () => api.get<{ runs: Run[]; total: number }>(`/eval/runs${qs({ limit: Math.min(200, offset + limit) })}`),
    [offset],
  );
  const shown = runs.data?.runs.slice(offset, offset + limit) ?? [];
  return (
    <Page title="Evaluation">
      <p className="muted">
        Runs replay captured turns (thumbs up or down in chat) and grade them; <code>npm run ops -- eval run</code>{' '}
        starts one. A completed run can become its model's baseline, and later runs list regressions against it.
      </p>
      <ErrorText error={metrics.error} />
      {metrics.data && (
        <dl className="facts">
          <dt>Captures</dt>
          <dd>{metrics.data.total}</dd>
          <dt>Without a snapshot</dt>
          <dd>{metrics.data.missing}</dd>
          <dt>Mirror pending / failed</dt>
          <dd>
            {metrics.data.mirror_pending} / {metrics.data.mirror_failed}
          </dd>
        </dl>
      )}
      <h2>Runs</h2>
      <ErrorText error={runs.error} />
      {runs.loading && !runs.data ? (
        <Loading what="runs" />
      ) : runs.data && runs.data.total === 0 ? (
        <p className="muted">No evaluation run yet.</p>
      ) : runs.data ? (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Evaluation runs, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Model</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Cases
                  </th>
                  <th scope="col" className="num">
                    Pass rate
                  </th>
                  <th scope="col">Started</th>
                  <th scope="col">Baseline</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <Link to={`/evaluation/runs/${r.id}`}>{r.tag ?? r.id.slice(0, 8)}</Link>
                    </td>
                    <td>{r.model_id}</td>
                    <td>
                      <StatusBadge status={r.status} />
                    </td>
                    <td className="num">{r.n_cases}</td>
                    <td className="num">{passRate(r)}</td>
                    <td>
                      <When at={r.started_at} />
                    </td>
                    <td>{r.is_baseline ? 'baseline' : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager offset={offset} limit={limit} total={Math.min(runs.data.total, 200)} onChange={setOffset} />
        </>
      ) : null}
      <Captures />
    </Page>
  );
}

function Captures() {
  const [conversationId, setConversationId] = useState('');
  const [captures, setCaptures] = useState<Capture[] | null>(null);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () =>
      setCaptures(
        (await api.get<{ captures: Capture[] }>(`/eval/captures${qs({ conversation_id: conversationId.trim() })}`))
          .captures,
      ),
    );
  };
  return (
    <form className="card secondary-form" onSubmit={submit} aria-labelledby="captures-title">
      <h2 id="captures-title">Your captures in a conversation</h2>
      <div className="row">
        <label>
          Conversation id
          <input value={conversationId} required onChange={(e) => setConversationId(e.target.value)} />
        </label>
        <button type="submit" disabled={action.busy}>
          Show captures
        </button>
      </div>
      <ErrorText error={action.error} />
      {captures &&
        (captures.length === 0 ? (
          <p className="muted">No capture in this conversation.</p>
        ) : (
          <DataTable
            caption="Captures"
            value={captures.map((c) => ({
              execution: c.execution_id,
              score: c.score > 0 ? '👍 up' : '👎 down',
              expected: c.expected_output ?? '',
              note: c.note ?? '',
              tag: c.category_tag ?? '',
              snapshot: c.snapshot_status,
              mirror: c.mirror_status,
            }))}
          />
        ))}
    </form>
  );
}

export function EvaluationRunPage({ id }: { id: string }) {
  const me = useMe();
  const run = useLoad(
    () => api.get<Run & { case_results: CaseResult[] }>(`/eval/runs/${encodeURIComponent(id)}`),
    [id],
  );
  const regressions = useLoad(
    () =>
      api
        .get<{ baseline_run_id: string; regressions: Array<Record<string, unknown>>; total: number }>(
          `/eval/runs/${encodeURIComponent(id)}/regressions`,
        )
        .catch((e) => {
          // No baseline for this model yet: a fact to show, not a failure.
          if (e instanceof ApiError && e.status === 409) return { none: e.message };
          throw e;
        }),
    [id],
  );
  const promote = useAction();
  const r = run.data;
  return (
    <Page title={r ? `Run ${r.tag ?? r.id.slice(0, 8)}` : 'Evaluation run'}>
      <p>
        <Link to="/evaluation">← All runs</Link>
      </p>
      <ErrorText error={run.error} />
      {run.loading && !r && <Loading what="the run" />}
      {r && (
        <>
          <dl className="facts">
            <dt>Model</dt>
            <dd>{r.model_id}</dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={r.status} /> {r.is_baseline && <strong>baseline of its model</strong>}
            </dd>
            <dt>Replay</dt>
            <dd>{r.replay}</dd>
            <dt>Results</dt>
            <dd>
              {r.n_pass} pass, {r.n_fail} fail, {r.n_degraded} degraded of {r.n_cases} ({passRate(r)}); judge threshold{' '}
              {r.judge_threshold}
            </dd>
            <dt>Usage</dt>
            <dd>
              {r.tokens_used ?? '—'} tokens, {r.cost_usd != null ? `$${r.cost_usd.toFixed(4)}` : '—'}
            </dd>
            <dt>Ran</dt>
            <dd>
              <When at={r.started_at} /> → <When at={r.completed_at} />
            </dd>
          </dl>
          {can(me, 'evals.manage') && !r.is_baseline && (
            <div>
              <button
                type="button"
                disabled={promote.busy}
                onClick={() =>
                  promote.run(async () => {
                    await api.post(`/eval/runs/${encodeURIComponent(id)}/promote`);
                    run.reload();
                    regressions.reload();
                  })
                }
              >
                Make this run the baseline
              </button>
              <ErrorText error={promote.error} />
            </div>
          )}
          <h2>Case results</h2>
          {r.case_results.length === 0 ? (
            <p className="muted">No case in this run.</p>
          ) : (
            <DataTable
              caption="Case results"
              value={r.case_results.map((c) => ({
                case: `${c.case_source}:${c.case_ref.slice(0, 8)}`,
                grader: c.grader.replace(/_/g, ' '),
                verdict: c.verdict,
                'judge score': c.judge_score ?? '',
                violations: Array.isArray(c.violations)
                  ? c.violations.join('; ')
                  : c.violations
                    ? JSON.stringify(c.violations)
                    : '',
              }))}
            />
          )}
          <h2>Regressions against the baseline</h2>
          <ErrorText error={regressions.error} />
          {regressions.data && 'none' in regressions.data ? (
            <p className="muted">{regressions.data.none}</p>
          ) : regressions.data ? (
            regressions.data.regressions.length === 0 ? (
              <p>No regression against the baseline.</p>
            ) : (
              <DataTable caption={`${regressions.data.total} regressions`} value={regressions.data.regressions} />
            )
          ) : null}
        </>
      )}
    </Page>
  );
}
