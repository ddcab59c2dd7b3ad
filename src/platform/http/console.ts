import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';

/** Where `npm install` (the `prepare` script) builds the console: console/dist. */
export const CONSOLE_ROOT = path.resolve(__dirname, '../../../console/dist');

/** Paths the console never answers: the API, health and metrics (a miss there stays the API's 404). */
const RESERVED = /^\/(api|health|metrics)(\/|$)/;

/**
 * Whether a path looks like the API to anyone: `//api/v1/auth//resolve`, `/API/v1`, `/%2Fapi`,
 * `/api%2Fv1` or a backslash reach no route, and answering them with the SPA's HTML would make
 * an API client read a 200 for a request that did nothing. The path is decoded
 * (twice-encoded slashes too), backslashes read as slashes, runs of slashes collapsed and the
 * letter case ignored before the reserved prefixes are tested.
 */
export function isApiLookingPath(path: string): boolean {
  let decoded = path;
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(decoded); i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      return true;
    }
  }
  const normalized = decoded
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .toLowerCase();
  return RESERVED.test(normalized.startsWith('/') ? normalized : `/${normalized}`);
}

/**
 * The console's static assets, then an SPA fallback (GET/HEAD of any other path answers
 * index.html) so a deep link such as /approvals/abc loads the app. Hashed assets are cached
 * for a year; index.html is never cached, so a rebuild is picked up at once.
 */
export function consoleRouter(root: string): Router {
  const router = Router();
  const assets = express.static(root, {
    index: false,
    setHeaders: (res, file) => {
      res.setHeader(
        'Cache-Control',
        file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
  router.use((req, res, next) => (isApiLookingPath(req.path) ? next() : assets(req, res, next)));
  router.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isApiLookingPath(req.path)) return next();
    const index = path.join(root, 'index.html');
    if (!existsSync(index)) {
      res
        .status(503)
        .type('text/plain')
        .send('The console is not built yet: run `npm install` (or `node console/build.js`).');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}

/** Builds the console when its index.html is missing (a checkout whose install skipped scripts). */
export async function ensureConsoleBuilt(
  root: string = CONSOLE_ROOT,
  log: (msg: string) => void = () => undefined,
): Promise<void> {
  if (existsSync(path.join(root, 'index.html'))) return;
  log('building the console (console/dist is missing)');

  const { buildConsole } = require('../../../console/build.js') as {
    buildConsole: (o?: { quiet?: boolean }) => Promise<void>;
  };
  await buildConsole({ quiet: true });
}
