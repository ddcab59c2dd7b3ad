import { useState, type FormEvent, type ReactElement } from 'react';
import { api } from '../api';
import { Link, navigate } from '../router';
import { ErrorText, Loading, Page, useLoad } from '../ui';
import { Filings } from '../filings';

interface Vertex {
  id: string;
  label: string;
  entity_id: string;
  properties?: Record<string, unknown>;
  [k: string]: unknown;
}
interface Edge {
  id: string;
  edge_label: string;
  direction: 'out' | 'in';
  properties: Record<string, unknown> | null;
  neighbor: { id: string; label: string; entity_id: string; properties: Record<string, unknown> | null };
}
interface TreeNode {
  label?: string;
  entity_id?: string;
  name?: string;
  rollup?: Record<string, unknown>;
  production?: Record<string, unknown>;
  children?: TreeNode[];
  [k: string]: unknown;
}

export function GraphPage({ label, id }: { label?: string; id?: string }) {
  const [l, setL] = useState(label ?? 'Well');
  const [i, setI] = useState(id ?? '');
  const go = (e: FormEvent) => {
    e.preventDefault();
    if (i.trim()) navigate(`/graph/${encodeURIComponent(l)}/${encodeURIComponent(i.trim())}`);
  };
  return (
    <Page title={label && id ? `${label} ${id}` : 'Knowledge graph'}>
      <form className="filters" onSubmit={go} aria-label="Open an entity">
        <label>
          Type
          <select value={l} onChange={(e) => setL(e.target.value)}>
            {['Well', 'Lease', 'Operator', 'Permit', 'FlaringAuthorization', 'Facility'].map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
        </label>
        <label>
          Entity id
          <input value={i} onChange={(e) => setI(e.target.value)} required />
        </label>
        <button type="submit">Open</button>
      </form>
      {label && id ? <Entity key={`${label}/${id}`} label={label} id={id} /> : <EntityList label={l} />}
    </Page>
  );
}

function EntityList({ label }: { label: string }) {
  const list = useLoad(() => api.get<{ entities: Vertex[] }>(`/graph/entities/${encodeURIComponent(label)}?limit=50`), [label]);
  return (
    <>
      <ErrorText error={list.error} />
      {list.loading && !list.data && <Loading what="entities" />}
      {list.data && (
        <ul className="entity-list">
          {list.data.entities.map((v) => (
            <li key={v.id}>
              <Link to={`/graph/${encodeURIComponent(v.label ?? label)}/${encodeURIComponent(v.entity_id)}`}>{String(v.properties?.name ?? v.entity_id)}</Link> <span className="muted small">{v.entity_id}</span>
            </li>
          ))}
          {list.data.entities.length === 0 && <li className="muted">No {label} entities.</li>}
        </ul>
      )}
    </>
  );
}

function Entity({ label, id }: { label: string; id: string }) {
  const path = `${encodeURIComponent(label)}/${encodeURIComponent(id)}`;
  const vertex = useLoad(() => api.get<Vertex>(`/graph/entities/${path}`), [path]);
  const edges = useLoad(() => api.get<{ edges: Edge[] }>(`/graph/edges/${path}`), [path]);
  const tree = useLoad(() => api.get<TreeNode>(`/impact/tree?root_label=${encodeURIComponent(label)}&root_id=${encodeURIComponent(id)}`), [path]);
  const groups = new Map<string, Edge[]>();
  for (const e of edges.data?.edges ?? []) {
    const key = `${e.edge_label} (${e.direction === 'out' ? 'to' : 'from'} ${e.neighbor.label})`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  return (
    <div className="columns">
      <div className="card">
        <h2>Properties</h2>
        <ErrorText error={vertex.error} />
        {vertex.data && (
          <dl className="facts">
            {Object.entries(vertex.data.properties ?? vertex.data).map(([k, v]) => (
              <div key={k} className="fact">
                <dt>{k}</dt>
                <dd>{v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)}</dd>
              </div>
            ))}
          </dl>
        )}
        <h2>Related</h2>
        <ErrorText error={edges.error} />
        {[...groups].map(([name, list]) => (
          <section key={name}>
            <h3 className="small-heading">{name.replace(/_/g, ' ')}</h3>
            <ul>
              {list.map((e) => (
                <li key={e.id}>
                  <Link to={`/graph/${encodeURIComponent(e.neighbor.label)}/${encodeURIComponent(e.neighbor.entity_id)}`}>{String(e.neighbor.properties?.name ?? e.neighbor.entity_id)}</Link>{' '}
                  <span className="muted small">
                    {e.neighbor.entity_id}
                    {e.properties && Object.keys(e.properties).length > 0 ? ` · ${Object.entries(e.properties).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(', ')}` : ''}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        ))}
        {edges.data && edges.data.edges.length === 0 && <p className="muted">No relationships.</p>}
        <Filings entityId={id} />
      </div>
      <div className="card">
        <h2>Impact tree</h2>
        <ErrorText error={tree.error} />
        {tree.loading && !tree.data && <Loading what="the impact tree" />}
        {tree.data && <Tree node={tree.data} />}
      </div>
    </div>
  );
}

function Tree({ node }: { node: TreeNode }) {
  const root = (node.root ?? node.tree ?? node) as TreeNode;
  const render = (n: TreeNode, depth: number): ReactElement => {
    const rollup = n.rollup ?? n.production;
    return (
      <li key={`${n.label}/${n.entity_id}/${depth}`}>
        <span>
          <strong>{n.label}</strong> {n.entity_id ? <Link to={`/graph/${encodeURIComponent(String(n.label))}/${encodeURIComponent(String(n.entity_id))}`}>{String(n.name ?? n.entity_id)}</Link> : null}
        </span>
        {rollup && (
          <span className="muted small">
            {' '}
            {Object.entries(rollup)
              .filter(([, v]) => typeof v === 'number')
              .map(([k, v]) => `${k.replace(/_/g, ' ')} ${Number(v).toLocaleString()}`)
              .join(' · ')}
          </span>
        )}
        {n.children && n.children.length > 0 && <ul>{n.children.map((c) => render(c, depth + 1))}</ul>}
      </li>
    );
  };
  if (!root.children && !root.label) return <pre className="json">{JSON.stringify(node, null, 2)}</pre>;
  return <ul className="tree">{render(root, 0)}</ul>;
}
