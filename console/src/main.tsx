import { Component, StrictMode, useCallback, useEffect, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { api, ApiError, onUnauthorized, type Me } from './api';
import { can, Link, match, MeContext, navigate, useLocation } from './router';
import { ErrorText, Loading } from './ui';
import { ApprovalsPage, ApprovalDetailPage } from './pages/Approvals';
import { ChatPage } from './pages/Chat';
import { CompliancePage } from './pages/Compliance';
import { ChecklistsPage, ChecklistPage } from './pages/Checklists';
import { GraphPage } from './pages/Graph';
import { AdminPage } from './pages/Admin';
import { HomePage } from './pages/Home';
import { ConnectorsPage, ConnectorPage } from './pages/Connectors';
import { EventsPage } from './pages/Events';
import { IngestionPage } from './pages/Ingestion';
import { EvaluationPage, EvaluationRunPage } from './pages/Evaluation';
import { ProjectsPage, ProjectPage } from './pages/Projects';
import { SkillsPage } from './pages/Skills';
import { SystemPage } from './pages/System';
import './styles.css';

function Login({ onSignedIn, expired }: { onSignedIn: (me: Me) => void; expired: boolean }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Compliance console';
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api.post('/auth/token', { email, password });
      onSignedIn(await api.get<Me>('/auth/me'));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="login">
      <form onSubmit={submit} aria-labelledby="login-title" className="card">
        <h1 id="login-title">Sign in</h1>
        {expired && (
          <p className="notice" role="status">
            Your session has ended. Sign in again to continue where you were.
          </p>
        )}
        <label>
          Email
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-describedby={error ? 'login-error' : undefined}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorText error={error} id="login-error" />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

/**
 * Where an invitation (`/invite?token=…`) or a password reset (`/reset-password?token=…`)
 * link lands: the token is checked first, then the new password is set and the user is
 * signed in (`POST /auth/invites/redeem` answers like a login) and taken to the start page.
 */
function SetPassword({ purpose, onSignedIn }: { purpose: 'invite' | 'reset'; onSignedIn: (me: Me) => void }) {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const [invite, setInvite] = useState<{
    email: string;
    display_name: string | null;
    purpose: string;
    expires_at: string;
  } | null>(null);
  const [lookup, setLookup] = useState<unknown>();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const title = purpose === 'invite' ? 'Set your password' : 'Choose a new password';
  useEffect(() => {
    document.title = `${title} · Compliance console`;
    if (!token) return setLookup(new Error('This link has no token. Open the link exactly as you received it.'));
    api
      .get<typeof invite>(`/auth/invites/${encodeURIComponent(token)}`)
      .then(setInvite, (e) =>
        setLookup(
          e instanceof ApiError && e.status === 404
            ? new Error(
                'This link is no longer valid: it was already used, has expired or was replaced. Ask your administrator for a new one.',
              )
            : e,
        ),
      );
  }, [token, title]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    if (password.length < 8) return setError(new Error('The password needs at least 8 characters.'));
    if (password !== repeat) return setError(new Error('The two passwords differ.'));
    setBusy(true);
    try {
      await api.post('/auth/invites/redeem', { token, password });
      const me = await api.get<Me>('/auth/me');
      navigate('/', true);
      onSignedIn(me);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 404
          ? new Error('This link is no longer valid. Ask your administrator for a new one.')
          : err,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="login">
      <form onSubmit={submit} aria-labelledby="password-title" className="card" noValidate>
        <h1 id="password-title">{title}</h1>
        <ErrorText error={lookup} />
        {!invite && !lookup && <Loading what="your invitation" />}
        {invite && (
          <>
            <p>
              {purpose === 'invite' ? 'Welcome' : 'Hello'}, <strong>{invite.display_name ?? invite.email}</strong>.{' '}
              {purpose === 'invite'
                ? 'Choose a password to finish setting up your account'
                : 'Choose a new password for your account'}{' '}
              (<span className="mono">{invite.email}</span>). You are signed in as soon as it is set.
            </p>
            <input type="email" name="username" autoComplete="username" value={invite.email} readOnly hidden />
            <label>
              New password (at least 8 characters)
              <input
                type="password"
                name="new-password"
                autoComplete="new-password"
                required
                minLength={8}
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </label>
            <label>
              Repeat the password
              <input
                type="password"
                name="repeat-password"
                autoComplete="new-password"
                required
                value={repeat}
                onChange={(e) => setRepeat(e.target.value)}
              />
            </label>
            <ErrorText error={error} />
            <button type="submit" disabled={busy}>
              {busy ? 'Setting the password…' : 'Set password and sign in'}
            </button>
          </>
        )}
        <p className="small">
          <a href="/">Go to sign in</a>
        </p>
      </form>
    </main>
  );
}

interface NavItem {
  to: string;
  label: string;
  permission?: string;
}
const NAV: Array<NavItem | { group: string; items: NavItem[] }> = [
  { to: '/', label: 'Today' },
  { to: '/approvals', label: 'Approvals' },
  { to: '/compliance', label: 'Compliance', permission: 'dashboards.read' },
  { to: '/checklists', label: 'Checklists' },
  { to: '/graph', label: 'Graph', permission: 'dashboards.read' },
  { to: '/chat', label: 'Chat', permission: 'conversations.use' },
  { to: '/projects', label: 'Projects', permission: 'conversations.use' },
  {
    group: 'Data',
    items: [
      { to: '/events', label: 'Events' },
      { to: '/ingestion', label: 'Ingestion', permission: 'ingest.run' },
      { to: '/connectors', label: 'Connectors', permission: 'exposures.propose' },
    ],
  },
  {
    group: 'Admin',
    items: [
      { to: '/evaluation', label: 'Evaluation' },
      { to: '/skills', label: 'Skills', permission: 'skills.author' },
      { to: '/admin', label: 'Administration', permission: 'users.manage' },
      { to: '/system', label: 'System', permission: 'system.operate' },
    ],
  },
];

/**
 * A group of navigation links behind one button (a disclosure, not an ARIA menu: its links
 * are ordinary links). Escape or a click elsewhere closes it; under 760 px it is a plain list.
 */
function NavGroup({ name, items, path }: { name: string; items: NavItem[]; path: string }) {
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!(e.target as Element).closest?.(`[data-group="${name}"]`)) setOpen(false);
    };
    document.addEventListener('click', close);
    return () => document.removeEventListener('click', close);
  }, [open, name]);
  const current = items.some((i) => path === i.to || path.startsWith(`${i.to}/`));
  if (items.length === 1)
    return (
      <li>
        <Link to={items[0].to}>{items[0].label}</Link>
      </li>
    );
  return (
    <li
      className={`nav-group ${open ? 'open' : ''}`}
      data-group={name}
      onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
    >
      <button
        type="button"
        aria-expanded={open}
        aria-controls={`nav-${name}`}
        className={current ? 'current' : ''}
        onClick={() => setOpen((o) => !o)}
      >
        {name} <span aria-hidden="true">▾</span>
      </button>
      <ul id={`nav-${name}`} className="submenu" aria-label={name}>
        {items.map((i) => (
          <li key={i.to}>
            <Link to={i.to}>{i.label}</Link>
          </li>
        ))}
      </ul>
    </li>
  );
}

function Routes() {
  const { path } = useLocation();
  let m: Record<string, string> | null;
  if (path === '/' || path === '') return <HomePage />;
  if ((m = match('/approvals/:id', path))) return <ApprovalDetailPage id={m.id} />;
  if (match('/approvals', path)) return <ApprovalsPage />;
  if ((m = match('/chat/:id', path))) return <ChatPage id={m.id} />;
  if (match('/chat', path)) return <ChatPage />;
  if (match('/compliance', path)) return <CompliancePage />;
  if ((m = match('/checklists/:id', path))) return <ChecklistPage id={m.id} />;
  if (match('/checklists', path)) return <ChecklistsPage />;
  if ((m = match('/graph/:label/:id', path))) return <GraphPage label={m.label} id={m.id} />;
  if (match('/graph', path)) return <GraphPage />;
  if (match('/admin', path)) return <AdminPage />;
  if ((m = match('/connectors/:key', path))) return <ConnectorPage connectorKey={m.key} />;
  if (match('/connectors', path)) return <ConnectorsPage />;
  if (match('/events', path)) return <EventsPage />;
  if (match('/ingestion', path)) return <IngestionPage />;
  if ((m = match('/evaluation/runs/:id', path))) return <EvaluationRunPage id={m.id} />;
  if (match('/evaluation', path)) return <EvaluationPage />;
  if ((m = match('/projects/:id', path))) return <ProjectPage id={m.id} />;
  if (match('/projects', path)) return <ProjectsPage />;
  if (match('/skills', path)) return <SkillsPage />;
  if (match('/system', path)) return <SystemPage />;
  return (
    <section className="page">
      <h1>Not found</h1>
      <p>
        There is no page at <code>{path}</code>. <Link to="/">Go to the start page</Link>.
      </p>
    </section>
  );
}

/** A rendering error shows a readable message and a way back instead of a blank page. */
class ErrorBoundary extends Component<
  { children: React.ReactNode; path: string },
  { error: Error | null; path: string }
> {
  state = { error: null as Error | null, path: this.props.path };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  static getDerivedStateFromProps(props: { path: string }, state: { error: Error | null; path: string }) {
    return props.path !== state.path ? { error: null, path: props.path } : null;
  }
  render() {
    if (this.state.error)
      return (
        <section className="page">
          <h1>Something went wrong on this page</h1>
          <ErrorText error={this.state.error} />
          <Link to="/">Go to the start page</Link>
        </section>
      );
    return this.props.children;
  }
}

function Shell({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  return (
    <MeContext.Provider value={me}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Compliance console</span>
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          Menu
        </button>
        <nav id="nav" aria-label="Main" className={menuOpen ? 'open' : ''}>
          <ul>
            {NAV.map((n) => {
              const allowed = (i: NavItem) => !i.permission || can(me, i.permission);
              if ('group' in n) {
                const items = n.items.filter(allowed);
                return items.length ? <NavGroup key={n.group} name={n.group} items={items} path={path} /> : null;
              }
              return allowed(n) ? (
                <li key={n.to}>
                  <Link to={n.to}>{n.label}</Link>
                </li>
              ) : null;
            })}
          </ul>
        </nav>
        <div className="who">
          <span title={`${me.email} · ${me.roles.join(', ') || 'no role'}`}>
            {me.display_name ?? me.email}{' '}
            <span className="muted">({me.roles.map((r) => r.replace(/_/g, ' ')).join(', ') || 'no role'})</span>
          </span>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <ErrorBoundary path={path}>
          <Routes />
        </ErrorBoundary>
      </main>
    </MeContext.Provider>
  );
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [expired, setExpired] = useState(false);
  const [error, setError] = useState<unknown>();

  const load = useCallback(() => {
    api.get<Me>('/auth/me').then(
      (m) => setMe(m),
      (e) => {
        if (e instanceof ApiError && e.status === 401) setMe(null);
        else setError(e);
      },
    );
  }, []);
  useEffect(load, [load]);
  useEffect(
    () =>
      onUnauthorized(() => {
        // Mid-session 401: back to login; the current address is kept, so signing in returns here.
        setMe((current) => {
          if (current) setExpired(true);
          return null;
        });
      }),
    [],
  );

  if (error)
    return (
      <main className="login">
        <ErrorText error={error} />
        <button
          type="button"
          onClick={() => {
            setError(undefined);
            load();
          }}
        >
          Retry
        </button>
      </main>
    );
  const landing = location.pathname === '/invite' ? 'invite' : location.pathname === '/reset-password' ? 'reset' : null;
  if (landing)
    return (
      <SetPassword
        purpose={landing}
        onSignedIn={(m) => {
          setExpired(false);
          setMe(m);
        }}
      />
    );
  if (me === undefined) return <Loading what="the console" />;
  if (me === null)
    return (
      <Login
        expired={expired}
        onSignedIn={(m) => {
          setExpired(false);
          setMe(m);
        }}
      />
    );
  return (
    <Shell
      me={me}
      onSignOut={async () => {
        await api.post('/auth/logout').catch(() => undefined);
        setExpired(false);
        setMe(null);
        navigate('/', true);
      }}
    />
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
