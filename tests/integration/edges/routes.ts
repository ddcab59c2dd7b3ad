import type { Router } from 'express';

export interface RouteEntry {
  method: string;
  path: string;
}

interface LayerLike {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: LayerLike[] };
  rawPath?: string | string[];
}

const join = (a: string, b: string) => `${a}/${b}`.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');

/**
 * Every route an express router answers, found by walking its stack (nested routers
 * included, with the path they are mounted on): routes added later are found the same way.
 */
export function routesOf(router: Router, prefix = ''): RouteEntry[] {
  const found: RouteEntry[] = [];
  for (const layer of (router as unknown as { stack: LayerLike[] }).stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const path of paths) {
        for (const [method, on] of Object.entries(layer.route.methods))
          if (on && method !== '_all') found.push({ method: method.toUpperCase(), path: join(prefix, path) });
      }
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      found.push(...routesOf(layer.handle as unknown as Router, join(prefix, mount)));
    }
  }
  const seen = new Set<string>();
  return found.filter((r) => {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The path with every `:param` replaced by `value` (already percent-encoded as wanted). */
export function fill(path: string, value: string): string {
  return path
    .replace(/:[A-Za-z0-9_]+\??/g, value)
    .replace(/\*[A-Za-z0-9_]*/g, value)
    .replace(/[{}]/g, '');
}
