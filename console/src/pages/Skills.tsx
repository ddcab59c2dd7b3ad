import { useState, type FormEvent } from 'react';
import { api } from '../api';
import { can, useMe } from '../router';
import { ErrorText, fieldError, Loading, Page, useAction, useLoad } from '../ui';

interface Skill {
  key: string;
  name: string;
  description: string | null;
  trigger_words: string[];
  instructions: string;
  version: number;
  built_in: boolean;
}

const EMPTY = { key: '', name: '', description: '', triggers: '', instructions: '' };

export function SkillsPage() {
  const me = useMe();
  const author = can(me, 'skills.author');
  const list = useLoad(() => api.get<{ skills: Skill[]; total: number }>('/skills'), []);
  const [form, setForm] = useState(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const save = useAction();
  const retire = useAction();
  const edit = (s: Skill) => {
    setEditing(s.key);
    setForm({
      key: s.key,
      name: s.name,
      description: s.description ?? '',
      triggers: s.trigger_words.join(', '),
      instructions: s.instructions,
    });
    save.clear();
    document.getElementById('skill-form-title')?.scrollIntoView();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run(async () => {
      const trigger_words = form.triggers
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      await api.put(`/skills/${encodeURIComponent(form.key)}`, {
        name: form.name,
        description: form.description || undefined,
        trigger_words,
        instructions: form.instructions,
      });
      setForm(EMPTY);
      setEditing(null);
      list.reload();
    });
  };
  const set = (k: keyof typeof EMPTY) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  return (
    <Page title="Skills">
      <p className="muted">
        Skills are instructions an agent loads when a conversation mentions one of their trigger words. Saving a skill
        makes a new version.
      </p>
      <ErrorText error={list.error} />
      {list.loading && !list.data && <Loading what="skills" />}
      {list.data && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Skills</caption>
            <thead>
              <tr>
                <th scope="col">Skill</th>
                <th scope="col">Trigger words</th>
                <th scope="col" className="num">
                  Version
                </th>
                <th scope="col">Instructions</th>
                {author && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.skills.map((s) => (
                <tr key={s.key}>
                  <td>
                    <strong>{s.name}</strong> <span className="muted small">({s.key})</span>
                    {s.built_in && <span className="badge badge-unknown">built in</span>}
                    {s.description && <span className="block muted small">{s.description}</span>}
                  </td>
                  <td>{s.trigger_words.join(', ')}</td>
                  <td className="num">{s.version}</td>
                  <td>
                    <details>
                      <summary>Read ({s.instructions.length.toLocaleString()} characters)</summary>
                      <p className="streamed small">{s.instructions}</p>
                    </details>
                  </td>
                  {author && (
                    <td>
                      <button type="button" className="secondary small" onClick={() => edit(s)}>
                        Edit {s.name}
                      </button>{' '}
                      <button
                        type="button"
                        className="secondary small"
                        disabled={retire.busy}
                        onClick={() =>
                          confirm(`Retire skill ${s.key}?`) &&
                          retire.run(async () => {
                            await api.del(`/skills/${encodeURIComponent(s.key)}`);
                            list.reload();
                          })
                        }
                      >
                        Retire {s.name}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorText error={retire.error} />
      {author && (
        <form className="card secondary-form" onSubmit={submit} aria-labelledby="skill-form-title">
          <h2 id="skill-form-title">{editing ? `Edit ${editing}` : 'New skill'}</h2>
          <div className="grid-form">
            <label>
              Key
              <input
                value={form.key}
                required
                readOnly={!!editing}
                pattern="[a-z0-9][a-z0-9_\-]{0,63}"
                onChange={set('key')}
                aria-invalid={!!fieldError(save.error, 'key')}
              />
            </label>
            <label>
              Name
              <input
                value={form.name}
                required
                onChange={set('name')}
                aria-invalid={!!fieldError(save.error, 'name')}
              />
            </label>
            <label>
              Trigger words (comma-separated)
              <input value={form.triggers} onChange={set('triggers')} />
            </label>
          </div>
          <label>
            Description
            <input value={form.description} onChange={set('description')} />
          </label>
          <label>
            Instructions
            <textarea
              rows={8}
              value={form.instructions}
              required
              onChange={set('instructions')}
              aria-invalid={!!fieldError(save.error, 'instructions')}
            />
          </label>
          <ErrorText error={save.error} />
          <div className="row">
            <button type="submit" disabled={save.busy}>
              {editing ? 'Save a new version' : 'Create skill'}
            </button>
            {editing && (
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  setEditing(null);
                  setForm(EMPTY);
                }}
              >
                Cancel
              </button>
            )}
          </div>
        </form>
      )}
    </Page>
  );
}
