import { useState, type FormEvent } from 'react';
import { api } from '../api';
import { can, useMe } from '../router';
import { ConfirmButton, ErrorText, fieldError, humanize, Loading, Page, Person, useLoad, When } from '../ui';

const ROLES = ['admin', 'operator', 'reviewer', 'power_user'] as const;
const ROLE_LABEL: Record<string, string> = {
  admin: 'Administrator',
  operator: 'Operator',
  reviewer: 'Reviewer',
  power_user: 'Power user',
};
interface User {
  id: string;
  email: string;
  display_name: string | null;
  roles: string[];
  is_active: boolean;
  status: string;
}

export function AdminPage() {
  const me = useMe();
  const [tab, setTab] = useState<'users' | 'settings' | 'prompts'>('users');
  const tabs = [
    { key: 'users' as const, label: 'Users', ok: can(me, 'users.manage') },
    { key: 'settings' as const, label: 'Settings and budgets', ok: true },
    { key: 'prompts' as const, label: 'Prompt templates', ok: can(me, 'prompts.author') || can(me, 'prompts.approve') },
  ].filter((t) => t.ok);
  return (
    <Page title="Administration">
      <div role="tablist" aria-label="Administration sections" className="tabs">
        {tabs.map((t) => (
          <button
            key={t.key}
            type="button"
            role="tab"
            aria-selected={tab === t.key}
            aria-controls={`panel-${t.key}`}
            id={`tab-${t.key}`}
            onClick={() => setTab(t.key)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'users' && <Users />}
        {tab === 'settings' && <Settings />}
        {tab === 'prompts' && <Prompts />}
      </div>
    </Page>
  );
}

function Users() {
  const users = useLoad(() => api.get<User[]>('/auth/admin/users'), []);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  // No role is preselected: a reviewer's invitation must not also grant operator by default.
  const [roles, setRoles] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [invite, setInvite] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    if (roles.length === 0) return setError(new Error('Choose at least one role for the new user.'));
    try {
      const created = await api.post<{ invite_url: string }>('/auth/admin/users', {
        email,
        display_name: name || null,
        roles,
      });
      setInvite(created.invite_url);
      setEmail('');
      setName('');
      setRoles([]);
      users.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <form onSubmit={submit} className="filters" aria-label="Invite a user">
        <label>
          Email
          <input
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={!!fieldError(error, 'email')}
          />
          {fieldError(error, 'email') && <span className="error">{fieldError(error, 'email')}</span>}
        </label>
        <label>
          Display name
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <fieldset>
          <legend>Roles (choose at least one)</legend>
          {ROLES.map((r) => (
            <label key={r} className="inline">
              <input
                type="checkbox"
                checked={roles.includes(r)}
                onChange={(e) => setRoles((s) => (e.target.checked ? [...s, r] : s.filter((x) => x !== r)))}
              />{' '}
              {ROLE_LABEL[r]}
            </label>
          ))}
        </fieldset>
        <button type="submit">Invite</button>
      </form>
      {!fieldError(error, 'email') && <ErrorText error={error} />}
      {invite && (
        <p className="notice" role="status">
          Invitation created. Send this link to the user; it opens a page where they set their password (valid 7 days):{' '}
          <code>{invite}</code>
        </p>
      )}
      <ErrorText error={users.error} />
      {users.loading && !users.data && <Loading what="users" />}
      {users.data && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Status</th>
                <th scope="col">Roles</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <UserRow key={u.id} user={u} onChanged={users.reload} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function UserRow({ user, onChanged }: { user: User; onChanged: () => void }) {
  const [roles, setRoles] = useState(user.roles);
  const [error, setError] = useState<unknown>();
  const [reset, setReset] = useState<string | null>(null);
  const act = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <tr>
      <td>
        {user.display_name ?? user.email}
        <span className="muted small block">{user.email}</span>
      </td>
      <td>
        <span className={`badge badge-${user.status}`}>{user.status}</span>
      </td>
      <td>
        <fieldset className="compact">
          <legend className="sr-only">Roles of {user.email}</legend>
          {ROLES.map((r) => (
            <label key={r} className="inline">
              <input
                type="checkbox"
                checked={roles.includes(r)}
                onChange={(e) => setRoles((s) => (e.target.checked ? [...s, r] : s.filter((x) => x !== r)))}
              />{' '}
              {ROLE_LABEL[r]}
            </label>
          ))}
        </fieldset>
      </td>
      <td>
        <div className="row">
          <button type="button" onClick={() => act(() => api.patch(`/auth/admin/users/${user.id}`, { roles }))}>
            Save roles
          </button>
          {user.is_active ? (
            <ConfirmButton
              label="Deactivate"
              question={`Deactivate ${user.display_name ?? user.email}? They are signed out everywhere.`}
              confirmLabel="Yes, deactivate"
              onConfirm={() => act(() => api.patch(`/auth/admin/users/${user.id}`, { is_active: false }))}
            />
          ) : (
            <button
              type="button"
              className="secondary"
              onClick={() => act(() => api.patch(`/auth/admin/users/${user.id}`, { is_active: true }))}
            >
              Reactivate
            </button>
          )}
          <ConfirmButton
            label="Reset password"
            question={`Reset the password of ${user.display_name ?? user.email}? Their sessions end and a one-hour link is issued.`}
            confirmLabel="Yes, reset"
            onConfirm={() =>
              act(async () =>
                setReset(
                  (await api.post<{ reset_url?: string }>(`/auth/admin/users/${user.id}/reset-password`)).reset_url ??
                    'issued',
                ),
              )
            }
          />
        </div>
        {reset && (
          <p className="small" role="status">
            Send this reset link to the user (valid one hour): <code>{reset}</code>
          </p>
        )}
        <ErrorText error={error} />
      </td>
    </tr>
  );
}

const SETTINGS_FIELDS: Array<{ key: string; label: string; type: 'text' | 'number' }> = [
  { key: 'default_model', label: 'Default model', type: 'text' },
  { key: 'fallback_model', label: 'Fallback model', type: 'text' },
  { key: 'max_tokens_per_execution', label: 'Max tokens per turn', type: 'number' },
  { key: 'max_cost_usd_per_execution', label: 'Max cost per turn (USD)', type: 'number' },
  { key: 'max_tokens_per_day', label: 'Max tokens per day', type: 'number' },
  { key: 'max_cost_usd_per_day', label: 'Max cost per day (USD)', type: 'number' },
  { key: 'max_thinking_mode', label: 'Max thinking mode', type: 'text' },
];

function Settings() {
  const me = useMe();
  const settings = useLoad(
    () =>
      api.get<{
        settings: Record<string, unknown>;
        effective: Record<string, unknown>;
        sources: Record<string, string>;
      }>('/settings'),
    [],
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const audit = useLoad(
    () =>
      can(me, 'settings.manage')
        ? api.get<SettingsAuditEntry[]>('/settings/audit-log?limit=20')
        : Promise.resolve(null),
    [],
  );
  const value = (k: string) =>
    values[k] ?? (settings.data?.settings[k] == null ? '' : String(settings.data.settings[k]));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved(false);
    const body: Record<string, unknown> = {};
    for (const f of SETTINGS_FIELDS) {
      if (values[f.key] === undefined) continue;
      const v = values[f.key].trim();
      body[f.key] = v === '' ? null : f.type === 'number' ? Number(v) : v;
    }
    try {
      await api.put('/settings', body);
      setValues({});
      setSaved(true);
      settings.reload();
      audit.reload();
    } catch (err) {
      setError(err);
    }
  };
  const editable = can(me, 'settings.manage');
  return (
    <>
      <ErrorText error={settings.error} />
      {settings.data && (
        <form onSubmit={submit} className="grid-form" aria-label="Tenant settings">
          {SETTINGS_FIELDS.map((f) => (
            <label key={f.key}>
              {f.label}
              <input
                type={f.type}
                step="any"
                disabled={!editable}
                value={value(f.key)}
                placeholder={`effective: ${String(settings.data!.effective[f.key] ?? '—')} (${settings.data!.sources[f.key] ?? 'default'})`}
                onChange={(e) => setValues((s) => ({ ...s, [f.key]: e.target.value }))}
                aria-invalid={!!fieldError(error, f.key)}
              />
              {fieldError(error, f.key) && <span className="error">{fieldError(error, f.key)}</span>}
            </label>
          ))}
          {editable && <button type="submit">Save settings</button>}
          <ErrorText error={error} />
          {saved && <p role="status">Saved.</p>}
        </form>
      )}
      <ErrorText error={audit.error} />
      {audit.data != null && <SettingsAudit entries={audit.data} />}
    </>
  );
}

interface SettingsAuditEntry {
  id: string;
  action: string;
  actor_id: string;
  target_user_id: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  at: string;
}

const shown = (v: unknown) =>
  v === null || v === undefined ? 'unset' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** The settings audit log (`GET /settings/audit-log` answers an array, newest first): who changed what, from what to what. */
function SettingsAudit({ entries }: { entries: SettingsAuditEntry[] }) {
  return (
    <section aria-labelledby="settings-audit-title">
      <h2 id="settings-audit-title">Audit log</h2>
      {entries.length === 0 ? (
        <p className="muted">No settings have been changed yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Settings changes, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Change</th>
                <th scope="col">By</th>
                <th scope="col">For</th>
                <th scope="col">Values</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td>
                    <When at={e.at} />
                  </td>
                  <td>{humanize(e.action.replace(/\./g, ' '))}</td>
                  <td>
                    <Person id={e.actor_id} />
                  </td>
                  <td>{e.target_user_id ? <Person id={e.target_user_id} /> : 'the whole tenant'}</td>
                  <td>
                    <ul className="plain-list">
                      {Object.entries(e.changes ?? {}).map(([k, c]) => (
                        <li key={k}>
                          {humanize(k)}: {shown(c?.from)} → {shown(c?.to)}
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

interface PromptTemplate {
  id: string;
  ref: string;
  name: string | null;
  slug: string;
  active_version_number: number | null;
  pre_production_version_id: string | null;
}
interface PromptVersion {
  id: string;
  version_number: number;
  status: string;
  author_id: string;
  body: string;
  change_note: string | null;
  created_at: string;
}

function Prompts() {
  const me = useMe();
  const templates = useLoad(() => api.get<PromptTemplate[]>('/prompts/templates'), []);
  const pending = useLoad(
    () =>
      can(me, 'prompts.approve')
        ? api.get<Array<PromptVersion & { template_ref: string }>>('/prompts/pending-approvals')
        : Promise.resolve([]),
    [],
  );
  // Pending = versions in pre-production awaiting a second person's approval.
  const [selected, setSelected] = useState<string>('');
  return (
    <>
      <ErrorText error={templates.error} />
      {templates.loading && !templates.data && <Loading what="prompt templates" />}
      {pending.data && pending.data.length > 0 && (
        <section aria-labelledby="pending-prompts">
          <h2 id="pending-prompts">Awaiting approval</h2>
          <ul>
            {pending.data.map((v) => (
              <li key={v.id}>
                {v.template_ref} v{v.version_number} by <Person id={v.author_id} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {templates.data && (
        <label className="inline-field">
          Template
          <select value={selected} onChange={(e) => setSelected(e.target.value)}>
            <option value="">Choose…</option>
            {templates.data.map((t) => (
              <option key={t.id} value={t.id}>
                {t.ref} {t.active_version_number ? `(active v${t.active_version_number})` : ''}
              </option>
            ))}
          </select>
        </label>
      )}
      {templates.data && templates.data.length === 0 && <p className="muted">No prompt templates yet.</p>}
      {selected && (
        <PromptTemplatePanel
          key={selected}
          id={selected}
          onChanged={() => {
            templates.reload();
            pending.reload();
          }}
        />
      )}
    </>
  );
}

function PromptTemplatePanel({ id, onChanged }: { id: string; onChanged: () => void }) {
  const versions = useLoad(() => api.get<PromptVersion[]>(`/prompts/templates/${id}/versions`), [id]);
  const audit = useLoad(() => api.get<unknown[]>(`/prompts/templates/${id}/audit-log?limit=20`), [id]);
  const [body, setBody] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  const refresh = () => {
    versions.reload();
    audit.reload();
    onChanged();
  };
  const act = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
      refresh();
    } catch (err) {
      setError(err);
    }
  };
  const draft = (e: FormEvent) => {
    e.preventDefault();
    void act(async () => {
      await api.post(`/prompts/templates/${id}/versions`, { body, ...(note ? { change_note: note } : {}) });
      setBody('');
      setNote('');
    });
  };
  return (
    <div className="columns">
      <div className="card">
        <h2>Versions</h2>
        <ErrorText error={versions.error} />
        <ErrorText error={error} />
        <ul className="items">
          {versions.data?.map((v) => (
            <li key={v.id} className="card">
              <strong>v{v.version_number}</strong>{' '}
              <span className={`badge badge-${v.status}`}>{v.status.replace(/_/g, ' ')}</span>{' '}
              <span className="muted small">
                by <Person id={v.author_id} /> · <When at={v.created_at} />
              </span>
              {v.change_note && <p>{v.change_note}</p>}
              <pre className="json">{v.body}</pre>
              <div className="row">
                {v.status === 'draft' && (
                  <button
                    type="button"
                    onClick={() => act(() => api.post(`/prompts/versions/${v.id}/promote-pre-prod`, {}))}
                  >
                    Promote to pre-production
                  </button>
                )}
                {v.status === 'pre_production' && (
                  <>
                    <button type="button" onClick={() => act(() => api.post(`/prompts/versions/${v.id}/approve`, {}))}>
                      Approve for production
                    </button>
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => act(() => api.post(`/prompts/versions/${v.id}/reject`, {}))}
                    >
                      Reject
                    </button>
                  </>
                )}
                {(v.status === 'draft' || v.status === 'retired') && (
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => act(() => api.post(`/prompts/versions/${v.id}/promote-active`, {}))}
                  >
                    {v.status === 'retired' ? 'Roll back to this version' : 'Make active'}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
        <form onSubmit={draft} aria-label="New draft">
          <h3>New draft</h3>
          <label>
            Template body
            <textarea
              rows={6}
              className="mono"
              required
              value={body}
              onChange={(e) => setBody(e.target.value)}
              aria-invalid={!!fieldError(error, 'body')}
            />
            {fieldError(error, 'body') && <span className="error">{fieldError(error, 'body')}</span>}
          </label>
          <label>
            Change note
            <input value={note} onChange={(e) => setNote(e.target.value)} />
          </label>
          <button type="submit">Save draft</button>
        </form>
      </div>
      <div className="card">
        <h2>Audit log</h2>
        <ErrorText error={audit.error} />
        {audit.data && (
          <ul className="plain-list">
            {(audit.data as Array<{ id: string; at: string; action: string; actor_id: string }>).map((a) => (
              <li key={a.id}>
                {humanize(a.action)} by <Person id={a.actor_id} /> · <When at={a.at} />
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
