import { Router } from 'express';
import type { ContextModule } from '../context-module';
import { type ApiDescription, buildOpenApiDocument, type Listener, type OpenApiDocument } from './describe';
import { platformApi } from './platform.openapi';
import { renderReference } from './reference-page';

/** Every description the given contexts carry, plus the platform's own routes. */
export function descriptionsOf(contexts: ContextModule[]): ApiDescription[] {
  return [platformApi, ...contexts.flatMap((c) => (c.openapi ? [c.openapi] : []))];
}

export function documentFor(contexts: ContextModule[], listener: Listener): OpenApiDocument {
  return buildOpenApiDocument(descriptionsOf(contexts), { listener });
}

/**
 * `GET /openapi.json` (mounted under /api/v1) and `GET /docs` (mounted at the root) for one
 * listener. The document is built once, on first request, from the contexts the platform runs.
 */
export function openApiRouters(contexts: ContextModule[], listener: Listener): { api: Router; root: Router } {
  let document: OpenApiDocument | null = null;
  let page: string | null = null;
  const load = () => (document ??= documentFor(contexts, listener));
  const api = Router();
  api.get('/openapi.json', (_req, res) => {
    res.json(load());
  });
  const root = Router();
  root.get('/docs', (_req, res) => {
    page ??= renderReference(load());
    res.type('html').setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'").send(page);
  });
  return { api, root };
}
