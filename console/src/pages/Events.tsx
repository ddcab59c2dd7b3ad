import { useState, type FormEvent } from 'react';
import { api, ApiError, qs } from '../api';
import { hiddenFields } from '../../../streams/monitoring/field-rules';
import type { LiveEventType } from '../../../streams/monitoring/event-type';
import { can, Link, useMe } from '../router';
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
import { Pager, StatusBadge } from './Approvals';

interface Field {
  id: string;
  name: string;
  type: 'number' | 'select' | 'text' | 'date' | 'datetime' | 'boolean' | 'entity_ref';
  required: boolean;
  options: string[] | null;
  label: string | null;
  description: string | null;
}
interface Rule {
  id: string;
  field: string;
  effect: 'show' | 'hide';
  when: { field: string; operator: string; value?: unknown };
  description?: string | null;
}
interface Guard {
  id: string;
  name: string;
  draft: { field: string; operator: string; value?: unknown; message?: string | null };
  published_version: number;
  has_unpublished_changes: boolean;
}
interface EventType {
  id: string;
  name: string;
  description: string | null;
  category: string | null;
  status: string;
  fields: Field[];
  conditional_rules: Rule[];
  guard_rules: Guard[];
  in_use: boolean;
}
interface OperationalEvent {
  id: string;
  event_type_id: string;
  entity_id: string;
  entity_type: string;
  occurred_at: string;
  fields: Record<string, unknown>;
  version: number;
  anomaly_flagged: boolean;
  logged_by: string;
}

const NEXT: Record<string, Array<{ status: string; label: string }>> = {
  draft: [{ status: 'active', label: 'Activate' }],
  active: [{ status: 'deprecated', label: 'Deprecate' }],
  deprecated: [
    { status: 'active', label: 'Reinstate' },
    { status: 'retired', label: 'Retire' },
  ],
  retired: [],
};

/** `well` or `Well` → the graph's label `Well` (entity pages are addressed by label). */
const graphLabel = (type: string) => type.charAt(0).toUpperCase() + type.slice(1);

export function EventsPage() {
  const me = useMe();
  const types = useLoad(() => api.get<EventType[]>('/event-types'), []);
  const [typeFilter, setTypeFilter] = useState('');
  const [entityFilter, setEntityFilter] = useState('');
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const events = useLoad(
    () =>
      api.get<{ events: OperationalEvent[]; total: number }>(
        `/events${qs({ event_type_id: typeFilter, entity_id: entityFilter.trim(), limit, offset })}`,
      ),
    [typeFilter, entityFilter, offset],
  );
  const typeName = (id: string) => types.data?.find((t) => t.id === id)?.name ?? id;
  const active = (types.data ?? []).filter((t) => t.status === 'active');
  return (
    <Page title="Operational events">
      <ErrorText error={types.error} />
      <div className="columns">
        <div className="stack">
          <section aria-labelledby="events-title">
            <h2 id="events-title">Events</h2>
            <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter events">
              <label>
                Event type
                <select
                  value={typeFilter}
                  onChange={(e) => {
                    setTypeFilter(e.target.value);
                    setOffset(0);
                  }}
                >
                  <option value="">All</option>
                  {types.data?.map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Entity
                <input
                  value={entityFilter}
                  onChange={(e) => {
                    setEntityFilter(e.target.value);
                    setOffset(0);
                  }}
                  placeholder="e.g. 42-301-12345"
                />
              </label>
            </form>
            <ErrorText error={events.error} />
            {events.loading && !events.data ? (
              <Loading what="events" />
            ) : events.data && events.data.events.length === 0 ? (
              <p className="muted">No events match these filters.</p>
            ) : events.data ? (
              <>
                <div className="table-wrap">
                  <table>
                    <caption className="sr-only">Operational events</caption>
                    <thead>
                      <tr>
                        <th scope="col">Occurred</th>
                        <th scope="col">Type</th>
                        <th scope="col">Entity</th>
                        <th scope="col">Fields</th>
                        <th scope="col">Logged by</th>
                        <th scope="col">Related</th>
                      </tr>
                    </thead>
                    <tbody>
                      {events.data.events.map((ev) => (
                        <tr key={ev.id}>
                          <td>
                            <When at={ev.occurred_at} />
                          </td>
                          <td>
                            {typeName(ev.event_type_id)}{' '}
                            {ev.anomaly_flagged && <span className="badge badge-fail">anomaly</span>}
                          </td>
                          <td>
                            {ev.entity_type ? (
                              <Link
                                to={`/graph/${encodeURIComponent(graphLabel(ev.entity_type))}/${encodeURIComponent(ev.entity_id)}`}
                              >
                                {ev.entity_id}
                              </Link>
                            ) : (
                              ev.entity_id
                            )}{' '}
                            <span className="muted small">{ev.entity_type}</span>
                          </td>
                          <td>
                            {Object.entries(ev.fields)
                              .map(([k, v]) => `${k}: ${String(v)}`)
                              .join(' · ')}
                          </td>
                          <td>
                            <Person id={ev.logged_by} />
                          </td>
                          <td>
                            <Correlate eventId={ev.id} typeName={typeName} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager offset={offset} limit={limit} total={events.data.total} onChange={setOffset} />
              </>
            ) : null}
          </section>
          <TypesTable types={types.data} configure={can(me, 'events.configure')} onChanged={types.reload} />
        </div>
        <div className="stack">
          {active.length > 0 ? (
            <LogEventForm types={active} onLogged={events.reload} />
          ) : (
            types.data && <p className="muted card">No event type is active yet, so no event can be logged.</p>
          )}
          {can(me, 'events.configure') && <TypeEditor types={types.data ?? []} onChanged={types.reload} />}
        </div>
      </div>
    </Page>
  );
}

function Correlate({ eventId, typeName }: { eventId: string; typeName: (id: string) => string }) {
  const [result, setResult] = useState<{ events?: OperationalEvent[] } | null>(null);
  const action = useAction();
  if (result)
    return (
      <div>
        {(result.events ?? []).length === 0 ? (
          <span className="muted">none within 24 h</span>
        ) : (
          <ul className="plain-list">
            {(result.events ?? []).map((e) => (
              <li key={e.id}>
                {typeName(e.event_type_id)} on {e.entity_id} · <When at={e.occurred_at} />
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  return (
    <>
      <button
        type="button"
        className="secondary small"
        disabled={action.busy}
        onClick={() =>
          action.run(async () => setResult(await api.post(`/events/${encodeURIComponent(eventId)}/correlate`, {})))
        }
      >
        Correlate
      </button>
      <ErrorText error={action.error} />
    </>
  );
}

function TypesTable({
  types,
  configure,
  onChanged,
}: {
  types: EventType[] | undefined;
  configure: boolean;
  onChanged: () => void;
}) {
  const action = useAction();
  if (!types) return null;
  return (
    <section aria-labelledby="types-title">
      <h2 id="types-title">Event types</h2>
      {types.length === 0 && <p className="muted">No event type is defined yet.</p>}
      {types.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Event types</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Fields</th>
                <th scope="col">Rules</th>
                {configure && <th scope="col">Lifecycle</th>}
              </tr>
            </thead>
            <tbody>
              {types.map((t) => (
                <tr key={t.id}>
                  <td>
                    {t.name} {t.category && <span className="muted small">({t.category})</span>}
                  </td>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                  <td>{t.fields.map((f) => `${f.name} (${f.type}${f.required ? ', required' : ''})`).join(', ')}</td>
                  <td>
                    {t.conditional_rules.length} conditional, {t.guard_rules.length} guard
                    {t.guard_rules.some((g) => g.has_unpublished_changes) && (
                      <span className="muted small"> (unpublished changes)</span>
                    )}
                  </td>
                  {configure && (
                    <td>
                      {NEXT[t.status]?.map((n) => (
                        <button
                          key={n.status}
                          type="button"
                          className="secondary small"
                          disabled={action.busy}
                          onClick={() =>
                            action.run(async () => {
                              await api.post(`/event-types/${t.id}/transition`, { status: n.status });
                              onChanged();
                            })
                          }
                        >
                          {n.label} {t.name}
                        </button>
                      ))}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorText error={action.error} />
    </section>
  );
}

/** Input text → the JSON value the field's type takes; undefined when empty. */
function toValue(field: Field, text: string | boolean | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  if (field.type === 'boolean') return text === true || text === 'true';
  if (field.type === 'number') return Number.isNaN(Number(text)) ? text : Number(text);
  if (field.type === 'datetime') return new Date(String(text)).toISOString();
  return text;
}

function LogEventForm({ types, onLogged }: { types: EventType[]; onLogged: () => void }) {
  const [typeId, setTypeId] = useState(types[0].id);
  const type = types.find((t) => t.id === typeId) ?? types[0];
  const [entityId, setEntityId] = useState('');
  const [entityType, setEntityType] = useState('Well');
  const [occurredAt, setOccurredAt] = useState(() => new Date().toISOString().slice(0, 16));
  const [inputs, setInputs] = useState<Record<string, string | boolean>>({});
  const [logged, setLogged] = useState<string | null>(null);
  const action = useAction();
  const values = Object.fromEntries(
    type.fields.map((f) => [f.name, toValue(f, inputs[f.name])]).filter(([, v]) => v !== undefined),
  ) as Record<string, string | number | boolean>;
  // Conditional rules apply as the user types, with the same evaluator the API runs on submit.
  const hidden = hiddenFields(
    { fields: type.fields, conditionalRules: type.conditional_rules } as unknown as LiveEventType,
    values,
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setLogged(null);
    void action.run(async () => {
      const fields = Object.fromEntries(Object.entries(values).filter(([k]) => !hidden.has(k)));
      const created = await api.post<{ id: string; suppressed?: boolean }>('/events', {
        event_type_id: type.id,
        entity_id: entityId,
        entity_type: entityType,
        occurred_at: new Date(occurredAt).toISOString(),
        fields,
      });
      setLogged(created.suppressed ? 'A duplicate of a recent event: suppressed.' : 'Event logged.');
      setInputs({});
      onLogged();
    });
  };
  const problem = (name: string) => fieldError(action.error, `fields.${name}`);
  const failedRules =
    (action.error instanceof ApiError
      ? (action.error.body as { failed_rules?: Array<{ field: string; message: string; rule_name: string }> })
      : undefined
    )?.failed_rules ?? [];
  const guardProblem = (name: string) =>
    failedRules
      .filter((r) => r.field === name)
      .map((r) => `${r.rule_name}: ${r.message}`)
      .join('; ') || undefined;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="log-title">
      <h2 id="log-title">Log an event</h2>
      <label>
        Event type
        <select
          value={type.id}
          onChange={(e) => {
            setTypeId(e.target.value);
            setInputs({});
            action.clear();
          }}
        >
          {types.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </label>
      {type.description && <p className="muted small">{type.description}</p>}
      <div className="grid-form">
        <label>
          Entity id
          <input
            value={entityId}
            required
            onChange={(e) => setEntityId(e.target.value)}
            aria-invalid={!!fieldError(action.error, 'entity_id')}
          />
        </label>
        <label>
          Entity type
          <input value={entityType} required onChange={(e) => setEntityType(e.target.value)} />
        </label>
        <label>
          Occurred at
          <input type="datetime-local" value={occurredAt} required onChange={(e) => setOccurredAt(e.target.value)} />
        </label>
      </div>
      <fieldset className="compact stack" aria-label={`Fields of ${type.name}`}>
        {type.fields
          .filter((f) => !hidden.has(f.name))
          .map((f) => {
            const message = problem(f.name) ?? guardProblem(f.name);
            const id = `field-${f.name}`;
            const common = { id, 'aria-invalid': !!message, 'aria-describedby': message ? `${id}-error` : undefined };
            const set = (v: string | boolean) => setInputs({ ...inputs, [f.name]: v });
            const label = `${f.label ?? f.name}${f.required ? ' (required)' : ''}`;
            return (
              <div key={f.id}>
                {f.type === 'boolean' ? (
                  <label className="inline">
                    <input
                      type="checkbox"
                      {...common}
                      checked={inputs[f.name] === true}
                      onChange={(e) => set(e.target.checked)}
                    />{' '}
                    {label}
                  </label>
                ) : (
                  <label htmlFor={id}>
                    {label}
                    {f.type === 'select' ? (
                      <select {...common} value={String(inputs[f.name] ?? '')} onChange={(e) => set(e.target.value)}>
                        <option value="">—</option>
                        {f.options?.map((o) => (
                          <option key={o} value={o}>
                            {o}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <input
                        {...common}
                        type={
                          f.type === 'number'
                            ? 'number'
                            : f.type === 'date'
                              ? 'date'
                              : f.type === 'datetime'
                                ? 'datetime-local'
                                : 'text'
                        }
                        step={f.type === 'number' ? 'any' : undefined}
                        value={String(inputs[f.name] ?? '')}
                        onChange={(e) => set(e.target.value)}
                      />
                    )}
                  </label>
                )}
                {f.description && <span className="muted small block">{f.description}</span>}
                {message && (
                  <p className="error" id={`${id}-error`}>
                    {message}
                  </p>
                )}
              </div>
            );
          })}
      </fieldset>
      {hidden.size > 0 && <p className="muted small">Hidden by the type's rules: {[...hidden].join(', ')}</p>}
      <ErrorText error={action.error} />
      {logged && (
        <p className="notice" role="status">
          {logged}
        </p>
      )}
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Logging…' : 'Log event'}
      </button>
    </form>
  );
}

/** Power users: a new type with its fields, and rules on an existing one (as the API takes them). */
function TypeEditor({ types, onChanged }: { types: EventType[]; onChanged: () => void }) {
  const [name, setName] = useState('');
  const [category, setCategory] = useState('');
  const [fields, setFields] = useState('[\n  {"name": "volume_mcf", "type": "number", "required": true}\n]');
  const create = useAction();
  const [ruleType, setRuleType] = useState('');
  const [ruleKind, setRuleKind] = useState<'conditional-rules' | 'guard-rules'>('conditional-rules');
  const [rule, setRule] = useState(
    '{"field": "", "effect": "show", "when": {"field": "", "operator": "equals", "value": ""}}',
  );
  const addRule = useAction();
  const target = types.find((t) => t.id === ruleType) ?? types[0];
  return (
    <>
      <form
        className="card"
        aria-labelledby="new-type-title"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(async () => {
            let list: unknown;
            try {
              list = JSON.parse(fields);
            } catch {
              throw new Error('Fields must be a JSON list of {name, type, required?, options?}.');
            }
            await api.post('/event-types', { name, ...(category ? { category } : {}), fields: list });
            setName('');
            onChanged();
          });
        }}
      >
        <h2 id="new-type-title">New event type</h2>
        <div className="grid-form">
          <TextField label="Name" value={name} onChange={setName} required />
          <TextField label="Category" value={category} onChange={setCategory} />
        </div>
        <label>
          Fields (JSON list)
          <textarea className="mono" rows={4} value={fields} onChange={(e) => setFields(e.target.value)} />
        </label>
        <ErrorText error={create.error} />
        <button type="submit" disabled={create.busy}>
          Create (as draft)
        </button>
      </form>
      {target && (
        <form
          className="card"
          aria-labelledby="rule-title"
          onSubmit={(e) => {
            e.preventDefault();
            void addRule.run(async () => {
              const created = await api.post<{ id: string }>(
                `/event-types/${target.id}/${ruleKind}`,
                parseJsonObject(rule, 'The rule'),
              );
              // A guard rule is a draft until published; publishing it here makes it apply at once.
              if (ruleKind === 'guard-rules')
                await api.post(`/event-types/${target.id}/guard-rules/${created.id}/publish`);
              onChanged();
            });
          }}
        >
          <h2 id="rule-title">Add a rule</h2>
          <div className="grid-form">
            <label>
              To type
              <select value={target.id} onChange={(e) => setRuleType(e.target.value)}>
                {types.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Kind
              <select
                value={ruleKind}
                onChange={(e) => {
                  const kind = e.target.value as typeof ruleKind;
                  setRuleKind(kind);
                  setRule(
                    kind === 'guard-rules'
                      ? '{"name": "", "field": "", "operator": "lte", "value": 0, "message": ""}'
                      : '{"field": "", "effect": "show", "when": {"field": "", "operator": "equals", "value": ""}}',
                  );
                }}
              >
                <option value="conditional-rules">Conditional (show/hide a field)</option>
                <option value="guard-rules">Guard (checked on submit; published at once)</option>
              </select>
            </label>
          </div>
          <label>
            Rule (JSON)
            <textarea className="mono" rows={3} value={rule} onChange={(e) => setRule(e.target.value)} />
          </label>
          {target.conditional_rules.length + target.guard_rules.length > 0 && (
            <DataTable
              caption={`Rules of ${target.name}`}
              value={[
                ...target.conditional_rules.map((r) => ({
                  kind: 'conditional',
                  rule: `${r.effect} ${r.field} when ${r.when.field} ${r.when.operator} ${JSON.stringify(r.when.value ?? '')}`,
                })),
                ...target.guard_rules.map((g) => ({
                  kind: `guard v${g.published_version}`,
                  rule: `${g.name}: ${g.draft.field} ${g.draft.operator} ${JSON.stringify(g.draft.value ?? '')}`,
                })),
              ]}
            />
          )}
          <ErrorText error={addRule.error} />
          <button type="submit" disabled={addRule.busy}>
            Add rule
          </button>
        </form>
      )}
    </>
  );
}
