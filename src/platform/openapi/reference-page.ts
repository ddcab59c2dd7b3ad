import type { OpenApiDocument } from './describe';

/**
 * A self-contained, readable reference page for an OpenAPI document: no script, no CDN,
 * one HTML file grouped by tag, schemas shown as JSON (components listed at the end).
 */
const escape = (text: unknown) =>
  String(text ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const json = (value: unknown) => `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`;

type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};

export function renderReference(document: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags?.[0] ?? 'other';
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<li><code>${escape(p.name)}</code> in ${escape(p.in)}${p.required ? ' (required)' : ''}: <code>${escape(JSON.stringify(p.schema))}</code></li>`,
        )
        .join('');
      const body = Object.entries(op.requestBody?.content ?? {})
        .map(([type, c]) => `<h4>Body (${escape(type)})</h4>${json(c.schema)}`)
        .join('');
      const responses = Object.entries(op.responses ?? {})
        .map(
          ([status, r]) =>
            `<details><summary><b>${escape(status)}</b> ${escape(r.description)}${Object.keys(r.content ?? {})
              .map((t) => ` <code>${escape(t)}</code>`)
              .join('')}</summary>${Object.values(r.content ?? {})
              .map((c) => json(c.schema))
              .join('')}</details>`,
        )
        .join('');
      const auth =
        op.security && op.security.length === 0
          ? '<span class="pub">no token</span>'
          : '<span class="auth">bearer / svc_token cookie</span>';
      const html = `<section id="${escape(method + path)}"><h3><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code> ${auth}</h3><p>${escape(op.summary)}</p>${op.description ? `<p>${escape(op.description)}</p>` : ''}${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}${body}<h4>Responses</h4>${responses}</section>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const toc = [...byTag.keys()].map((t) => `<a href="#tag-${escape(t)}">${escape(t)}</a>`).join(' · ');
  const sections = [...byTag.entries()]
    .map(([tag, ops]) => `<h2 id="tag-${escape(tag)}">${escape(tag)}</h2>${ops.join('')}`)
    .join('');
  const components = json(document.components ?? {});
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(document.info.title)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}section{border-top:1px solid #ddd;padding:.4em 0}
pre{background:#f6f6f6;padding:.6em;overflow:auto;font-size:12px}.m{display:inline-block;min-width:4em;padding:0 .4em;border-radius:3px;color:#fff;text-align:center;font-size:12px}
.get{background:#2a7}.post{background:#27c}.put{background:#c82}.patch{background:#a5c}.delete{background:#c33}.pub{color:#2a7;font-size:12px}.auth{color:#888;font-size:12px}h3{font-size:15px;margin:.3em 0}h4{margin:.4em 0 .2em}</style></head>
<body><h1>${escape(document.info.title)} <small>${escape(document.info.version)}</small></h1><p>${escape(document.info.description)}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a> (OpenAPI ${escape(document.openapi)}).</p><p>${toc}</p>${sections}<h2>Components</h2>${components}</body></html>`;
}
