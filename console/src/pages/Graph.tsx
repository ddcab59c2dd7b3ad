import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { api, ApiError, qs } from '../api';
import { can, Link, navigate, useMe } from '../router';
import { Day, ErrorText, formatNumber, humanize, Loading, Page, useLoad, When } from '../ui';
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
      {label && id && <EntityHeading label={label} id={id} />}
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

/** The entity's name under the page title (the title keeps label and ID, which are what links carry). */
function EntityHeading({ label, id }: { label: string; id: string }) {
  const vertex = useLoad(
    () => api.get<Vertex>(`/graph/entities/${encodeURIComponent(label)}/${encodeURIComponent(id)}`).catch(() => null),
    [label, id],
  );
  const name = vertex.data?.properties?.name ?? vertex.data?.properties?.well_name;
  return name ? <p className="entity-name">{String(name)}</p> : null;
}

function EntityList({ label }: { label: string }) {
  const [offset, setOffset] = useState(0);
  const limit = 50;
  useEffect(() => setOffset(0), [label]);
  // One more than a page tells whether a next page exists (the list answers no total).
  const list = useLoad(
    () =>
      api.get<{ entities: Vertex[] }>(
        `/graph/entities/${encodeURIComponent(label)}${qs({ limit: limit + 1, offset })}`,
      ),
    [label, offset],
  );
  const shown = list.data?.entities.slice(0, limit) ?? [];
  const more = (list.data?.entities.length ?? 0) > limit;
  return (
    <>
      <ErrorText error={list.error} />
      {list.loading && !list.data && <Loading what="entities" />}
      {list.data && (
        <>
          <ul className="entity-list">
            {shown.map((v) => (
              <li key={v.id}>
                <Link to={`/graph/${encodeURIComponent(v.label ?? label)}/${encodeURIComponent(v.entity_id)}`}>
                  {String(v.properties?.name ?? v.properties?.well_name ?? v.entity_id)}
                </Link>{' '}
                <span className="muted small">{v.entity_id}</span>
              </li>
            ))}
            {shown.length === 0 && <li className="muted">No {label} entities.</li>}
          </ul>
          <nav className="pager" aria-label="Pages">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - limit))}>
              Previous
            </button>
            <span>
              {shown.length === 0 ? 0 : offset + 1}–{offset + shown.length}
              {more ? '' : ` of ${offset + shown.length}`}
            </span>
            <button type="button" disabled={!more} onClick={() => setOffset(offset + limit)}>
              Next
            </button>
          </nav>
        </>
      )}
    </>
  );
}

interface Domain {
  domain: string;
  title: string;
  short_title: string;
  applies_to?: string[];
}
interface Cell {
  domain: string;
  color: string;
  bucket: string | null;
  due_date: string | null;
  anomaly: boolean;
  reason: string;
  facts: Record<string, unknown>;
}
export interface EntityVerdicts {
  entity_id: string;
  entity_type: string;
  entity_name: string;
  cells: Cell[];
  anomalies: Array<{ domain: string; kind: string; detail: string; observed_at: string }>;
  history: Array<{
    domain: string;
    color: string;
    reason: string;
    due_date: string | null;
    valid_from: string;
    valid_to: string;
  }>;
}
interface Template {
  template_id: string;
  title: string;
  domain: string;
  entity_types?: string[];
}

/** What a cell's color means, in words (the matrix, the entity page and the legend agree). */
export const VERDICT_MEANING: Record<string, string> = {
  red: 'violation',
  amber: 'attention needed',
  blue: 'in progress',
  green: 'compliant',
  grey: 'unknown',
  na: 'does not apply',
};
const SEVERITY: Record<string, number> = { red: 0, amber: 1, blue: 2, grey: 3, green: 4 };

const UNIT_SUFFIXES: Array<[RegExp, string]> = [
  [/_bbls?(_per_month)?$/, 'bbl'],
  [/_mcf(_per_month)?$/, 'mcf'],
  [/_(ft|feet)$/, 'ft'],
  [/_psi[a-z]?$/, 'psi'],
  [/_days$/, 'days'],
  [/_acres$/, 'acres'],
  [/_usd$/, 'USD'],
];
/** Keys whose digits are identifiers, never quantities (no thousands separators). */
const IDENTIFIER = /(^|_)(id|api|number|no|code|district|zip|phone|year|period|permit|lease|rrc|serial)(_|$)/;
const DATE_VALUE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/;

/** A property as a reviewer reads it: a label, the value with separators or as a date, and its unit. */
export function PropertyValue({ name, value }: { name: string; value: unknown }) {
  if (value === null || value === undefined || value === '') return <span className="muted">—</span>;
  if (typeof value === 'object') return <span className="mono small">{JSON.stringify(value)}</span>;
  const text = String(value);
  if (DATE_VALUE.test(text)) return text.length === 10 ? <Day day={text} /> : <When at={text} />;
  const graphRef = /^graph:([^/]+)\/(.+)$/.exec(text);
  if (graphRef)
    return (
      <Link
        to={`/graph/${encodeURIComponent(graphRef[1])}/${encodeURIComponent(graphRef[2])}`}
      >{`${graphRef[1]} ${graphRef[2]}`}</Link>
    );
  const unit = UNIT_SUFFIXES.find(([re]) => re.test(name))?.[1];
  const numeric = text.trim() !== '' && !Number.isNaN(Number(text)) && !IDENTIFIER.test(name);
  return (
    <span className={numeric ? 'num-value' : undefined}>
      {numeric ? formatNumber(text) : text}
      {unit ? ` ${unit}` : ''}
    </span>
  );
}

function Facts({ facts, label }: { facts: Record<string, unknown>; label: string }) {
  const entries = Object.entries(facts ?? {});
  if (entries.length === 0) return null;
  return (
    <dl className="facts small" aria-label={label}>
      {entries.map(([k, v]) => (
        <div key={k} className="fact">
          <dt>{humanize(k)}</dt>
          <dd>
            {Array.isArray(v) ? (
              v
                .map((x, i) => <PropertyValue key={i} name={k} value={x} />)
                .reduce<ReactNode[]>((a, x, i) => (i ? [...a, ', ', x] : [x]), [])
            ) : (
              <PropertyValue name={k} value={v} />
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Checklist templates that fix a domain for this kind of entity (the checklist's "Start" link). */
const fixesFor = (templates: Template[], domain: string, label: string) =>
  templates.filter((t) => t.domain === domain && (t.entity_types ?? ['Well']).includes(label));
const startLink = (t: Template, label: string, id: string) =>
  `/checklists${qs({ template: t.template_id, entity_type: label, entity_id: id })}`;

/** One domain's verdict with why, what it rests on, when it is due and what to do about it. */
export function VerdictDetail({
  cell,
  domain,
  label,
  id,
  templates,
}: {
  cell: Cell;
  domain?: Domain;
  label: string;
  id: string;
  templates: Template[];
}) {
  const fixes = cell.color === 'green' ? [] : fixesFor(templates, cell.domain, label);
  return (
    <div className={`verdict verdict-${cell.color}`}>
      <h3 className="small-heading">
        {domain?.title ?? cell.domain}:{' '}
        <span className={`badge verdict-badge-${cell.color}`}>{VERDICT_MEANING[cell.color] ?? cell.color}</span>
        {cell.anomaly && <span className="badge badge-warn"> anomaly</span>}
      </h3>
      <p>{cell.reason}</p>
      <p className="small">
        {cell.due_date ? (
          <>
            Due <Day day={cell.due_date} />
            {cell.bucket === 'overdue'
              ? ' — overdue'
              : cell.bucket === 'due_7d'
                ? ' — within 7 days'
                : cell.bucket === 'due_30d'
                  ? ' — within 30 days'
                  : ''}
          </>
        ) : (
          <span className="muted">No due date.</span>
        )}
      </p>
      <Facts facts={cell.facts} label={`Facts behind ${domain?.short_title ?? cell.domain}`} />
      {fixes.length > 0 && (
        <p className="next-step">
          <strong>Next step:</strong>{' '}
          {fixes.map((t, i) => (
            <span key={t.template_id}>
              {i > 0 && ' or '}
              <Link className="button-link" to={startLink(t, label, id)}>
                Start checklist: {t.title}
              </Link>
            </span>
          ))}
        </p>
      )}
      {fixes.length === 0 && cell.color !== 'green' && (
        <p className="small muted">
          No checklist fixes this domain; act on the facts above (they are the graph's, open their sources to correct
          them).
        </p>
      )}
    </div>
  );
}

function Compliance({ label, id }: { label: string; id: string }) {
  const me = useMe();
  const allowed = can(me, 'dashboards.read');
  const verdicts = useLoad(
    () =>
      allowed
        ? api
            .get<EntityVerdicts>(`/compliance/entities/${encodeURIComponent(id)}`)
            .catch((e) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e)))
        : Promise.resolve(null),
    [id, allowed],
  );
  const domains = useLoad(
    () => (allowed ? api.get<Domain[]>('/compliance/domains') : Promise.resolve([] as Domain[])),
    [allowed],
  );
  const templates = useLoad(() => api.get<{ templates: Template[] }>('/checklists/templates'), []);
  if (!allowed) return null;
  const byDomain = new Map((domains.data ?? []).map((d) => [d.domain, d]));
  const cells = [...(verdicts.data?.cells ?? [])].sort(
    (a, b) =>
      (SEVERITY[a.color] ?? 9) - (SEVERITY[b.color] ?? 9) || (a.due_date ?? '9').localeCompare(b.due_date ?? '9'),
  );
  const notApplicable = (domains.data ?? []).filter((d) => d.applies_to && !d.applies_to.includes(label));
  return (
    <section className="card" aria-labelledby="compliance-title">
      <h2 id="compliance-title">Compliance: why, and what next</h2>
      <ErrorText error={verdicts.error ?? domains.error} />
      {verdicts.loading && !verdicts.data && <Loading what="the verdicts" />}
      {verdicts.data === null && !verdicts.loading && <p className="muted">This entity has not been assessed yet.</p>}
      {verdicts.data && (
        <>
          {cells.length === 0 && <p className="muted">No domain has a verdict for this entity.</p>}
          {cells.map((c) => (
            <VerdictDetail
              key={c.domain}
              cell={c}
              domain={byDomain.get(c.domain)}
              label={label}
              id={id}
              templates={templates.data?.templates ?? []}
            />
          ))}
          {notApplicable.length > 0 && (
            <p className="small muted">
              Does not apply to {/^[aeiou]/i.test(label) ? 'an' : 'a'} {label.toLowerCase()}:{' '}
              {notApplicable.map((d) => d.short_title).join(', ')}.
            </p>
          )}
          {verdicts.data.anomalies.length > 0 && (
            <>
              <h3 className="small-heading">Open anomalies</h3>
              <ul className="plain-list">
                {verdicts.data.anomalies.map((a, i) => (
                  <li key={i}>
                    {byDomain.get(a.domain)?.short_title ?? a.domain}: {a.detail}{' '}
                    <span className="muted small">
                      ({humanize(a.kind)}, <When at={a.observed_at} />)
                    </span>
                  </li>
                ))}
              </ul>
            </>
          )}
          <details>
            <summary>Verdict history ({verdicts.data.history.length})</summary>
            {verdicts.data.history.length === 0 ? (
              <p className="muted">No earlier verdicts.</p>
            ) : (
              <div className="table-wrap">
                <table>
                  <caption className="sr-only">Earlier verdicts, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Domain</th>
                      <th scope="col">Verdict</th>
                      <th scope="col">Held</th>
                      <th scope="col">Reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    {verdicts.data.history.map((h, i) => (
                      <tr key={i}>
                        <td>{byDomain.get(h.domain)?.short_title ?? h.domain}</td>
                        <td>
                          <span className={`badge verdict-badge-${h.color}`}>
                            {VERDICT_MEANING[h.color] ?? h.color}
                          </span>
                        </td>
                        <td className="small">
                          <When at={h.valid_from} /> – <When at={h.valid_to} />
                        </td>
                        <td className="small">{h.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </details>
        </>
      )}
    </section>
  );
}

function Entity({ label, id }: { label: string; id: string }) {
  const path = `${encodeURIComponent(label)}/${encodeURIComponent(id)}`;
  const vertex = useLoad(() => api.get<Vertex>(`/graph/entities/${path}`), [path]);
  const edges = useLoad(() => api.get<{ edges: Edge[] }>(`/graph/edges/${path}`), [path]);
  const groups = new Map<string, Edge[]>();
  for (const e of edges.data?.edges ?? []) {
    const key = `${humanize(e.edge_label.toLowerCase())} (${e.direction === 'out' ? 'to' : 'from'} ${e.neighbor.label})`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const properties = vertex.data ? Object.entries(vertex.data.properties ?? vertex.data) : [];
  return (
    <div className="stack">
      {vertex.error instanceof ApiError && vertex.error.status === 404 ? (
        <p className="error" role="alert">
          There is no {label} with ID {id} in the knowledge graph.
        </p>
      ) : (
        <ErrorText error={vertex.error} />
      )}
      <Compliance label={label} id={id} />
      <div className="columns">
        <section className="card" aria-labelledby="properties-title">
          <h2 id="properties-title">Properties</h2>
          {vertex.data && (
            <dl className="facts">
              {properties.map(([k, v]) => (
                <div key={k} className="fact">
                  <dt title={k}>{humanize(k)}</dt>
                  <dd>
                    <PropertyValue name={k} value={v} />
                  </dd>
                </div>
              ))}
            </dl>
          )}
        </section>
        <section className="card" aria-labelledby="related-title">
          <h2 id="related-title">Related</h2>
          <ErrorText error={edges.error} />
          {[...groups].map(([name, list]) => (
            <section key={name}>
              <h3 className="small-heading">
                {name} <span className="muted small">({list.length.toLocaleString()})</span>
              </h3>
              <ul>
                {list.slice(0, 25).map((e) => (
                  <li key={e.id}>
                    <Link
                      to={`/graph/${encodeURIComponent(e.neighbor.label)}/${encodeURIComponent(e.neighbor.entity_id)}`}
                    >
                      {String(e.neighbor.properties?.name ?? e.neighbor.properties?.well_name ?? e.neighbor.entity_id)}
                    </Link>{' '}
                    <span className="muted small">{e.neighbor.entity_id}</span>
                  </li>
                ))}
              </ul>
              {list.length > 25 && <p className="small muted">and {(list.length - 25).toLocaleString()} more.</p>}
            </section>
          ))}
          {edges.data && edges.data.edges.length === 0 && <p className="muted">No relationships.</p>}
          <Filings entityId={id} />
        </section>
      </div>
      <ImpactTree label={label} id={id} />
    </div>
  );
}

/**
 * The physical network reached from the entity (pads, facilities, pipelines), folded: the
 * summary says how much is there, each branch opens on demand. A branch's figures count the
 * wells under it; the entity's own line says "its network", not the entity itself.
 */
function ImpactTree({ label, id }: { label: string; id: string }) {
  const [open, setOpen] = useState(false);
  const tree = useLoad(
    () =>
      open
        ? api.get<{ root?: TreeNode; vertices?: number; truncated?: boolean }>(
            `/impact/tree${qs({ root_label: label, root_id: id })}`,
          )
        : Promise.resolve(null),
    [label, id, open],
  );
  const root = tree.data?.root;
  return (
    <details className="card" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>
        <h2 className="inline-heading">Impact tree</h2>{' '}
        <span className="muted small">the network this {label.toLowerCase()} belongs to (opens on demand)</span>
      </summary>
      <ErrorText error={tree.error} />
      {tree.loading && open && !tree.data && <Loading what="the impact tree" />}
      {root && (
        <>
          <p className="small">
            {(tree.data?.vertices ?? 0).toLocaleString()} connected entities;{' '}
            {root.rollup ? <Rollup rollup={root.rollup} /> : null} across the network
            {tree.data?.truncated ? ' (cut off at the size limit)' : ''}.
          </p>
          <ul className="tree">
            <TreeBranch node={root} depth={0} />
          </ul>
        </>
      )}
    </details>
  );
}

function Rollup({ rollup }: { rollup: Record<string, unknown> }) {
  const wells = Number(rollup.wells ?? 0);
  const oil = Number(rollup.oil_bbls_per_month ?? 0);
  const gas = Number(rollup.gas_mcf_per_month ?? 0);
  return (
    <>
      {wells.toLocaleString()} {wells === 1 ? 'well' : 'wells'}, {oil.toLocaleString()} bbl oil and{' '}
      {gas.toLocaleString()} mcf gas a month
    </>
  );
}

function TreeBranch({ node, depth }: { node: TreeNode; depth: number }) {
  const children = node.children ?? [];
  const name = (
    <>
      <span className="muted small">{node.label}</span>{' '}
      {node.entity_id ? (
        <Link to={`/graph/${encodeURIComponent(String(node.label))}/${encodeURIComponent(String(node.entity_id))}`}>
          {String(node.name ?? node.entity_id)}
        </Link>
      ) : null}
    </>
  );
  if (children.length === 0) return <li>{name}</li>;
  return (
    <li>
      <details open={depth === 0}>
        <summary>
          {name}{' '}
          <span className="muted small">
            {children.length.toLocaleString()} below
            {node.rollup ? (
              <>
                ; <Rollup rollup={node.rollup} />
              </>
            ) : null}
          </span>
        </summary>
        <ul>
          {children.map((c, i) => (
            <TreeBranch key={`${c.label}/${c.entity_id}/${i}`} node={c} depth={depth + 1} />
          ))}
        </ul>
      </details>
    </li>
  );
}
