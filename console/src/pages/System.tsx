import { useEffect, useState } from 'react';
import { api, ApiError, qs } from '../api';
import { ErrorText, formatNumber, humanize, Loading, Page, useAction, useLoad, When } from '../ui';

/** The System page (docs/console.md): the processing runtime as `GET /admin/system` reports it. */

type LaneState = 'subscription_down' | 'dead_lettered' | 'behind' | 'running' | 'caught_up';

interface Lane {
  name: string;
  kind: 'projection' | 'reactor' | 'scheduler';
  lag_events: number;
  lag_seconds: number;
  subscribed: boolean | null;
  failures: number;
  dead_letters: number;
  state: LaneState;
}

interface SystemReport {
  instance: string;
  lanes: Lane[];
  leadership: Array<{
    name: 'projections' | 'reactors' | 'scheduler';
    instance: string | null;
    this_instance: boolean;
  }>;
  scheduled: {
    due: number;
    overdue: number;
    retrying: number;
    dead_lettered: number;
    oldest_wait_s: number;
    next: Array<{ message_id: string; tenant_id: string; handler: string; due_at: string; attempts: number }>;
    parked: ParkedMessage[];
  };
  lag_degraded_after_s: number;
}

interface ParkedMessage {
  message_id: string;
  tenant_id: string;
  handler: string;
  due_at: string;
  attempts: number;
  error: string;
  dead_lettered_at: string;
}

interface DeadLetter {
  id: string;
  lane: string;
  kind: 'projection' | 'reactor';
  event_type: string;
  event_id: string;
  stream: string;
  position: string;
  error: string;
  attempts: number;
  created_at: string;
}

const STATE_TEXT: Record<LaneState, string> = {
  subscription_down: 'Subscription down',
  dead_lettered: 'Dead-lettered',
  behind: 'Behind',
  running: 'Running',
  caught_up: 'Caught up',
};

const KIND_TEXT: Record<Lane['kind'], string> = {
  projection: 'Projection',
  reactor: 'Reactor',
  scheduler: 'Scheduled messages',
};

const LEADERSHIP_TEXT: Record<SystemReport['leadership'][number]['name'], string> = {
  projections: 'Projections',
  reactors: 'Reactors',
  scheduler: 'Scheduled messages',
};

/** Seconds as people read a wait: "0 s", "42 s", "3 min 5 s", "2 h 4 min". */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `${formatNumber(Math.round(seconds * 10) / 10)} s`;
  const s = Math.round(seconds);
  if (s < 3600) return s % 60 === 0 ? `${s / 60} min` : `${Math.floor(s / 60)} min ${s % 60} s`;
  const minutes = Math.floor((s % 3600) / 60);
  return minutes === 0 ? `${Math.floor(s / 3600)} h` : `${Math.floor(s / 3600)} h ${minutes} min`;
}

/** `compliance.deadline-reminder` → "Compliance deadline reminder": a handler's or lane's name in words. */
const named = (name: string) => humanize(name.replace(/[._:-]+/g, '_'));

/** How often the page reads the runtime again by itself (ms). */
const REFRESH_MS = 10_000;

export function SystemPage() {
  const system = useLoad(() => api.get<SystemReport>('/admin/system'), []);
  const letters = useLoad(
    () => api.get<{ dead_letters: DeadLetter[] }>(`/admin/system/dead-letters${qs({ limit: 100 })}`),
    [],
  );
  const retry = useAction();
  const [retrying, setRetrying] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const refire = useAction();
  const [refired, setRefired] = useState<string | null>(null);
  const reload = () => {
    system.reload();
    letters.reload();
  };
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const retryLetter = (letter: DeadLetter) => {
    setRetrying(letter.id);
    setDone(null);
    void retry
      .run(async () => {
        await api.post(`/admin/system/dead-letters/${encodeURIComponent(letter.id)}/retry`, {});
        setDone(`${letter.event_type} in ${named(letter.lane)} was handled again and is resolved.`);
      })
      .finally(() => {
        setRetrying(null);
        reload();
      });
  };

  const retryParked = (m: ParkedMessage) => {
    setRetrying(`scheduled:${m.tenant_id}:${m.message_id}`);
    setRefired(null);
    void refire
      .run(async () => {
        await api.post(
          `/admin/system/scheduled/${encodeURIComponent(m.tenant_id)}/${encodeURIComponent(m.message_id)}/retry`,
          {},
        );
        setRefired(`${named(m.handler)} is due again; the scheduler fires it on its next tick.`);
      })
      .finally(() => {
        setRetrying(null);
        reload();
      });
  };

  const report = system.data;
  return (
    <Page
      title="System"
      actions={
        <button type="button" onClick={reload} disabled={system.loading || letters.loading}>
          Refresh
        </button>
      }
    >
      <p className="muted">
        The processing runtime behind every read model and follow-up: each lane's lag and state, which instance leads,
        the scheduled messages, and the events a lane kept failing on. A lane counts as behind once its oldest waiting
        event is older than {report ? formatWait(report.lag_degraded_after_s) : 'the bound'}.
      </p>
      <ErrorText
        error={
          system.error instanceof ApiError && system.error.status === 403
            ? new Error(
                "The System page is for the administrators of the platform's operator tenant: lanes and dead letters hold every tenant's events.",
              )
            : system.error
        }
      />
      {!report && !system.error && <Loading what="the runtime" />}
      {report && (
        <>
          <section aria-labelledby="leadership-title">
            <h2 id="leadership-title">Leadership</h2>
            <p>
              This page was answered by instance <code>{report.instance}</code>.
            </p>
            <div className="table-wrap">
              <table>
                <caption className="sr-only">Which instance leads each kind of lane</caption>
                <thead>
                  <tr>
                    <th scope="col">Lanes</th>
                    <th scope="col">Led by</th>
                  </tr>
                </thead>
                <tbody>
                  {report.leadership.map((lead) => (
                    <tr key={lead.name}>
                      <th scope="row">{LEADERSHIP_TEXT[lead.name]}</th>
                      <td>
                        {lead.instance ? (
                          <>
                            <code>{lead.instance}</code>
                            {lead.this_instance && ' (this instance)'}
                          </>
                        ) : (
                          <span className="badge badge-lane-down">No instance leads: these lanes run nowhere</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>

          <section aria-labelledby="lanes-title">
            <h2 id="lanes-title">Lanes</h2>
            <div className="table-wrap">
              <table>
                <caption className="sr-only">Every lane with its lag and state</caption>
                <thead>
                  <tr>
                    <th scope="col">Lane</th>
                    <th scope="col">Kind</th>
                    <th scope="col">State</th>
                    <th scope="col">Lag (events)</th>
                    <th scope="col">Lag (time)</th>
                    <th scope="col">Failed attempts</th>
                    <th scope="col">Dead letters</th>
                  </tr>
                </thead>
                <tbody>
                  {report.lanes.map((lane) => (
                    <tr key={`${lane.kind}:${lane.name}`} data-lane={lane.name}>
                      <th scope="row" title={lane.name}>
                        {named(lane.name)}
                      </th>
                      <td>{KIND_TEXT[lane.kind]}</td>
                      <td>
                        <span className={`badge badge-lane-${lane.state}`}>{STATE_TEXT[lane.state]}</span>
                      </td>
                      <td>{formatNumber(lane.lag_events)}</td>
                      <td>{formatWait(lane.lag_seconds)}</td>
                      <td>{formatNumber(lane.failures)}</td>
                      <td>{formatNumber(lane.dead_letters)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        </>
      )}

      <section aria-labelledby="dead-letters-title">
        <h2 id="dead-letters-title">Dead letters</h2>
        <p className="muted">
          An event a lane failed on five times is parked here and the lane goes on. Fix the cause, then retry: the event
          is handled again, once; one that still fails stays listed.
        </p>
        {!(letters.error instanceof ApiError && letters.error.status === 403) && <ErrorText error={letters.error} />}
        <ErrorText error={retry.error} />
        {done && (
          <p className="notice" role="status">
            {done}
          </p>
        )}
        {letters.data && letters.data.dead_letters.length === 0 && (
          <p>No dead letters: every lane handled every event.</p>
        )}
        {letters.data && letters.data.dead_letters.length > 0 && (
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Events lanes kept failing on</caption>
              <thead>
                <tr>
                  <th scope="col">Lane</th>
                  <th scope="col">Event</th>
                  <th scope="col">Parked</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Error</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {letters.data.dead_letters.map((letter) => (
                  <tr key={letter.id}>
                    <th scope="row" title={letter.lane}>
                      {named(letter.lane)} <span className="muted">({KIND_TEXT[letter.kind].toLowerCase()})</span>
                    </th>
                    <td>
                      {letter.event_type}
                      <br />
                      <span className="muted" title={`event ${letter.event_id} at ${letter.position}`}>
                        in {letter.stream}
                      </span>
                    </td>
                    <td>
                      <When at={letter.created_at} />
                    </td>
                    <td>{formatNumber(letter.attempts)}</td>
                    <td className="dead-letter-error">{letter.error}</td>
                    <td>
                      <button
                        type="button"
                        onClick={() => retryLetter(letter)}
                        disabled={retry.busy}
                        aria-label={`Retry ${letter.event_type} in ${named(letter.lane)}`}
                      >
                        {retrying === letter.id ? 'Retrying…' : 'Retry'}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {report && (
        <section aria-labelledby="scheduled-title">
          <h2 id="scheduled-title">Scheduled messages</h2>
          <dl className="facts">
            <div className="fact">
              <dt>Due now</dt>
              <dd>{formatNumber(report.scheduled.due)}</dd>
            </div>
            <div className="fact">
              <dt>Overdue (waiting over {formatWait(report.lag_degraded_after_s)})</dt>
              <dd>{formatNumber(report.scheduled.overdue)}</dd>
            </div>
            <div className="fact">
              <dt>Oldest wait</dt>
              <dd>{formatWait(report.scheduled.oldest_wait_s)}</dd>
            </div>
            <div className="fact">
              <dt>Failed, waiting to retry</dt>
              <dd>{formatNumber(report.scheduled.retrying)}</dd>
            </div>
            <div className="fact">
              <dt>Dead-lettered</dt>
              <dd>{formatNumber(report.scheduled.dead_lettered)}</dd>
            </div>
          </dl>
          <ErrorText error={refire.error} />
          {refired && (
            <p className="notice" role="status">
              {refired}
            </p>
          )}
          {report.scheduled.parked.length > 0 && (
            <div className="table-wrap">
              <table>
                <caption>Dead-lettered: their handler kept failing</caption>
                <thead>
                  <tr>
                    <th scope="col">What</th>
                    <th scope="col">Was due</th>
                    <th scope="col">Parked</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Error</th>
                    <th scope="col">Action</th>
                  </tr>
                </thead>
                <tbody>
                  {report.scheduled.parked.map((m) => (
                    <tr key={`${m.tenant_id}:${m.message_id}`}>
                      <th scope="row" title={`${m.handler}, message ${m.message_id}`}>
                        {named(m.handler)}
                      </th>
                      <td>
                        <When at={m.due_at} />
                      </td>
                      <td>
                        <When at={m.dead_lettered_at} />
                      </td>
                      <td>{formatNumber(m.attempts)}</td>
                      <td className="dead-letter-error">{m.error}</td>
                      <td>
                        <button
                          type="button"
                          onClick={() => retryParked(m)}
                          disabled={refire.busy}
                          aria-label={`Retry ${named(m.handler)} (${m.message_id})`}
                        >
                          {retrying === `scheduled:${m.tenant_id}:${m.message_id}` ? 'Retrying…' : 'Retry'}
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {report.scheduled.next.length === 0 ? (
            <p>Nothing is scheduled.</p>
          ) : (
            <div className="table-wrap">
              <table>
                <caption>Next to fire</caption>
                <thead>
                  <tr>
                    <th scope="col">What</th>
                    <th scope="col">Due</th>
                    <th scope="col">Failed attempts</th>
                  </tr>
                </thead>
                <tbody>
                  {report.scheduled.next.map((m) => (
                    <tr key={`${m.tenant_id}:${m.message_id}`}>
                      <th scope="row" title={`${m.handler}, message ${m.message_id}`}>
                        {named(m.handler)}
                      </th>
                      <td>
                        <When at={m.due_at} />
                      </td>
                      <td>{formatNumber(m.attempts)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </Page>
  );
}
