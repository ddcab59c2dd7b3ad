import type { Express } from 'express';

/** A route an express app serves: method (lower-case, `all` for router.all) and path in OpenAPI syntax. */
export interface ServedRoute {
  method: string;
  path: string;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string | string[];
}

const join = (prefix: string, path: string) => (prefix + (path === '/' ? '' : path)).replace(/\/{2,}/g, '/') || '/';

function walk(stack: Layer[], prefix: string, out: ServedRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      for (const path of ([] as string[]).concat(layer.route.path)) {
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on)
            out.push({
              method: method === '_all' ? 'all' : method,
              path: join(prefix, path).replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
            });
        }
      }
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' ? layer.rawPath : '/';
      walk(layer.handle.stack, join(prefix, mount), out);
    }
  }
}

/** Every route of a built app (walks `app.router` and every nested router). */
export function servedRoutes(app: Express): ServedRoute[] {
  const out: ServedRoute[] = [];
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', out);
  return out;
}
