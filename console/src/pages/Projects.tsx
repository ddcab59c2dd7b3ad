import { useEffect, useState, type FormEvent } from 'react';
import { api, request } from '../api';
import { Link, navigate } from '../router';
import { ErrorText, fieldError, Loading, Page, TextField, useAction, useLoad, When } from '../ui';

interface ProjectSummary {
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  defaults: { thinking_mode?: string } & Record<string, unknown>;
  member_count: number;
  knowledge_file_count: number;
  updated_at: string;
}
interface Project extends ProjectSummary {
  knowledge_files: Array<{
    id: string;
    filename: string;
    size_bytes?: number;
    token_estimate?: number;
    created_at?: string;
  }>;
}

export function ProjectsPage() {
  const list = useLoad(() => api.get<{ projects: ProjectSummary[]; total: number }>('/projects'), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void create.run(async () => {
      const p = await api.post<Project>('/projects', { name, ...(description ? { description } : {}) });
      navigate(`/projects/${p.id}`);
    });
  };
  return (
    <Page title="Projects">
      <p className="muted">
        A project gives its conversations shared instructions, defaults and up to five knowledge files. Projects are
        yours alone.
      </p>
      <ErrorText error={list.error} />
      {list.loading && !list.data ? (
        <Loading what="projects" />
      ) : list.data && list.data.projects.length === 0 ? (
        <p className="muted">No project yet.</p>
      ) : list.data ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Your projects, most recently updated first</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col" className="num">
                  Conversations
                </th>
                <th scope="col" className="num">
                  Knowledge files
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.projects.map((p) => (
                <tr key={p.id}>
                  <td>
                    <Link to={`/projects/${p.id}`}>{p.name}</Link>
                    {p.description && <span className="block muted small">{p.description}</span>}
                  </td>
                  <td className="num">{p.member_count}</td>
                  <td className="num">{p.knowledge_file_count}</td>
                  <td>
                    <When at={p.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <form className="card secondary-form" onSubmit={submit} aria-labelledby="new-project-title">
        <h2 id="new-project-title">New project</h2>
        <div className="grid-form">
          <TextField label="Name" value={name} onChange={setName} required />
          <TextField label="Description" value={description} onChange={setDescription} />
        </div>
        <ErrorText error={create.error} />
        <button type="submit" disabled={create.busy}>
          Create project
        </button>
      </form>
    </Page>
  );
}

export function ProjectPage({ id }: { id: string }) {
  const project = useLoad(() => api.get<Project>(`/projects/${encodeURIComponent(id)}`), [id]);
  const conversations = useLoad(
    () =>
      api.get<{
        conversations: Array<{ id: string; title: string; last_message_at: string | null; created_at: string }>;
      }>(`/conversations?project_id=${encodeURIComponent(id)}`),
    [id],
  );
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [instructions, setInstructions] = useState('');
  const [thinking, setThinking] = useState('');
  const save = useAction();
  const files = useAction();
  const remove = useAction();
  const [saved, setSaved] = useState(false);
  const p = project.data;
  useEffect(() => {
    if (!p) return;
    setName(p.name);
    setDescription(p.description ?? '');
    setInstructions(p.instructions ?? '');
    setThinking(p.defaults?.thinking_mode ?? '');
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the form resets when another version loads, not on every render's copy
  }, [p?.id, p?.updated_at]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void save.run(async () => {
      const { thinking_mode: _old, ...otherDefaults } = p?.defaults ?? {};
      await api.patch(`/projects/${encodeURIComponent(id)}`, {
        name,
        description,
        instructions,
        defaults: { ...otherDefaults, ...(thinking ? { thinking_mode: thinking } : {}) },
      });
      setSaved(true);
      project.reload();
    });
  };
  const uploadFile = (list: FileList | null) => {
    if (!list?.length) return;
    void files.run(async () => {
      for (const file of Array.from(list)) {
        const form = new FormData();
        form.append('file', file, file.name);
        try {
          await request('POST', `/projects/${encodeURIComponent(id)}/knowledge`, form);
        } catch (err) {
          throw Object.assign(err as Error, { message: `${file.name}: ${(err as Error).message}` });
        }
      }
      project.reload();
    });
  };
  return (
    <Page title={p ? `Project ${p.name}` : 'Project'}>
      <p>
        <Link to="/projects">← All projects</Link>
      </p>
      <ErrorText error={project.error} />
      {project.loading && !p && <Loading what="the project" />}
      {p && (
        <div className="columns">
          <form className="card" onSubmit={submit} aria-labelledby="project-edit-title">
            <h2 id="project-edit-title">Instructions and defaults</h2>
            <TextField label="Name" value={name} onChange={setName} required />
            <TextField label="Description" value={description} onChange={setDescription} />
            <label>
              Instructions (given to the agent in every conversation of the project)
              <textarea
                rows={8}
                value={instructions}
                onChange={(e) => setInstructions(e.target.value)}
                aria-invalid={!!fieldError(save.error, 'instructions')}
              />
            </label>
            <label>
              Thinking mode
              <select value={thinking} onChange={(e) => setThinking(e.target.value)}>
                <option value="">the agent's default</option>
                <option value="adaptive">adaptive</option>
                <option value="disabled">disabled</option>
              </select>
            </label>
            <ErrorText error={save.error} />
            {saved && (
              <p className="notice" role="status">
                Saved.
              </p>
            )}
            <div className="row">
              <button type="submit" disabled={save.busy}>
                Save
              </button>
              <button
                type="button"
                className="secondary"
                disabled={remove.busy}
                onClick={() =>
                  confirm(`Delete project ${p.name}? Its conversations stay, outside any project.`) &&
                  remove.run(async () => {
                    await api.del(`/projects/${encodeURIComponent(id)}`);
                    navigate('/projects');
                  })
                }
              >
                Delete project
              </button>
            </div>
            <ErrorText error={remove.error} />
          </form>
          <div className="stack">
            <section className="card" aria-labelledby="knowledge-title">
              <h2 id="knowledge-title">Knowledge files ({p.knowledge_files.length} of 5)</h2>
              {p.knowledge_files.length === 0 && <p className="muted">No knowledge file yet.</p>}
              <ul className="plain-list">
                {p.knowledge_files.map((f) => (
                  <li key={f.id}>
                    {f.filename}{' '}
                    {f.token_estimate != null && (
                      <span className="muted small">({f.token_estimate.toLocaleString()} tokens)</span>
                    )}{' '}
                    <button
                      type="button"
                      className="secondary small"
                      disabled={files.busy}
                      onClick={() =>
                        files.run(async () => {
                          await api.del(`/projects/${encodeURIComponent(id)}/knowledge/${encodeURIComponent(f.id)}`);
                          project.reload();
                        })
                      }
                    >
                      Remove {f.filename}
                    </button>
                  </li>
                ))}
              </ul>
              <label>
                Add a file (PDF, CSV, XLSX, DOCX, TXT)
                <input
                  type="file"
                  onChange={(e) => {
                    uploadFile(e.target.files);
                    e.target.value = '';
                  }}
                  disabled={files.busy}
                />
              </label>
              {files.busy && (
                <p className="muted" role="status">
                  Reading the file…
                </p>
              )}
              <ErrorText error={files.error} />
            </section>
            <section className="card" aria-labelledby="members-title">
              <h2 id="members-title">Conversations ({p.member_count})</h2>
              <ErrorText error={conversations.error} />
              <ul className="plain-list">
                {conversations.data?.conversations.map((c) => (
                  <li key={c.id}>
                    <Link to={`/chat/${c.id}`}>{c.title}</Link>{' '}
                    <span className="muted small">
                      <When at={c.last_message_at ?? c.created_at} />
                    </span>
                  </li>
                ))}
              </ul>
              {conversations.data?.conversations.length === 0 && (
                <p className="muted">No conversation in this project yet.</p>
              )}
            </section>
          </div>
        </div>
      )}
    </Page>
  );
}
