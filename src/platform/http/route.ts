import type { Request, Response, Router } from 'express';
import type { z, ZodTypeAny } from 'zod';
import type { CommandContext } from '../command-handling/command-handler';
import type { Config } from '../config';
import { NotFound } from '../domain-errors';
import type { Position } from '../eventstore/types';
import { commandContext } from './command-context';
import { type Identity, requireIdentity } from './identity';
import { parse } from './validation';

/**
 * A route as a declaration: permission, parse, one command or one query, the reactions its
 * answer waits for, one response mapper. How to declare one: docs/http.md.
 */

/** What the declared steps hand to the command or query and to the mapper. */
export interface RouteInput<Params, Query, Body, Caller = Identity> {
  params: Params;
  query: Query;
  body: Body;
  /** Who calls: the stamped identity, unless the routes were declared with their own `caller` reading. */
  caller: Caller;
  /** The stamped identity; reading it without one answers 401 (only possible with a `caller` reading). */
  identity: Identity;
  /** Tenant, actor and correlation of a command issued by this request (from the stamped identity). */
  context: CommandContext;
}

type Parsed<S> = S extends ZodTypeAny ? z.infer<S> : undefined;
type Schema = ZodTypeAny | undefined;

type Status = 200 | 201 | 202 | 204;

interface Steps<P extends Schema, Q extends Schema, B extends Schema> {
  /**
   * Checked before anything is parsed; absent: any authenticated user of the tenant. A list
   * takes any one of them (a caller holding none is checked against the first).
   */
  permission?: string | readonly string[];
  params?: P;
  query?: Q;
  body?: B;
}

/** A write: one command, optionally the follow-up reactions its answer shows. */
export interface CommandRoute<P extends Schema, Q extends Schema, B extends Schema, R, C = Identity> extends Steps<
  P,
  Q,
  B
> {
  /**
   * 200 unless said; 204 answers without a body. A function of the command's result when the
   * answer differs by outcome (a create answers 201, its replay 200).
   */
  status?: Status | ((result: R) => Status);
  command(input: RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>, C>): Promise<R>;
  /**
   * Event types whose reactors must have reacted to the command's write before the mapper
   * runs (bounded by `PROJECTION_WAIT_MS`; the answer then shows what it can). The command's
   * result must carry the write's `position` (null when nothing was appended: nothing to wait for).
   */
  awaits?: readonly string[];
  respond?(result: R, input: RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>, C>): unknown;
}

/** A read: one query; `notFound` answers 404 with that detail when it finds nothing. */
export interface QueryRoute<P extends Schema, Q extends Schema, B extends Schema, R, C = Identity> extends Steps<
  P,
  Q,
  B
> {
  /** 200 unless said. */
  status?: Status;
  read(input: RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>, C>): Promise<R> | R;
  notFound?: string;
  respond?(result: NonNullable<R>, input: RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>, C>): unknown;
}

/** The permission check of the identity context, handed in so the kernel holds no policy. */
export type Authorize = (req: Request, permission: string, deps: { config: Pick<Config, 'authMode'> }) => void;

export interface RouteDeps {
  config: Pick<Config, 'authMode' | 'projectionWaitMs'>;
  reactors: { waitFor(position: Position, timeoutMs: number, eventTypes: readonly string[]): Promise<boolean> };
}

/**
 * How routes whose caller need not be a stamped identity read it instead (a header-less local
 * tool on the internal listener naming itself, a public route): it runs first, in place of the
 * 401 for a request without identity, and may itself answer 401 or 403.
 */
export interface DeclareOptions<C> {
  caller(req: Request): C;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

async function steps<P extends Schema, Q extends Schema, B extends Schema, C>(
  req: Request,
  route: Steps<P, Q, B>,
  deps: RouteDeps,
  authorize: Authorize,
  callerOf: (req: Request) => C,
): Promise<RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>, C>> {
  const caller = callerOf(req);
  const anyOf = typeof route.permission === 'string' ? [route.permission] : (route.permission ?? []);
  if (anyOf.length > 0 && !anyOf.some((p) => requireIdentity(req).permissions.includes(p)))
    authorize(req, anyOf[0], deps);
  return {
    params: (route.params ? parse(route.params, req.params, 'path') : undefined) as Parsed<P>,
    query: (route.query ? parse(route.query, req.query, 'query') : undefined) as Parsed<Q>,
    body: (route.body ? parse(route.body, req.body ?? {}, 'body') : undefined) as Parsed<B>,
    caller,
    get identity() {
      return requireIdentity(req);
    },
    get context() {
      return commandContext(req);
    },
  };
}

function positionOf(result: unknown): Position | null {
  if (result && typeof result === 'object' && 'position' in result)
    return (result as { position: Position | null }).position;
  throw new Error('a route that awaits reactions needs its command to return the position of its write');
}

function answer(res: Response, status: number, body: unknown): void {
  if (status === 204) res.status(204).end();
  else res.status(status).json(body);
}

type Write<C> = <P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined, R = unknown>(
  path: string,
  route: CommandRoute<P, Q, B, R, C>,
) => void;

/** The declarers `declareRoutes` hands back, one per kind of route. */
export interface Routes<C> {
  /** A read: one query (GET). */
  get<P extends Schema = undefined, Q extends Schema = undefined, R = unknown>(
    path: string,
    route: QueryRoute<P, Q, undefined, R, C> & { body?: undefined },
  ): void;
  post: Write<C>;
  put: Write<C>;
  patch: Write<C>;
  delete: Write<C>;
  /** A read answered to a POST (a search with a body): one query, nothing written. */
  search<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined, R = unknown>(
    path: string,
    route: QueryRoute<P, Q, B, R, C>,
  ): void;
}

/**
 * Declares routes on `router`: `route.post(path, {permission, params, body, command, awaits,
 * respond})` for a write, `route.get(path, {permission, query, read, notFound, respond})` for a
 * read. Errors thrown by any step reach the error handler (src/platform/http/errors.ts).
 */
export function declareRoutes(router: Router, deps: RouteDeps, authorize: Authorize): Routes<Identity>;
export function declareRoutes<C>(
  router: Router,
  deps: RouteDeps,
  authorize: Authorize,
  options: DeclareOptions<C>,
): Routes<C>;
export function declareRoutes<C>(
  router: Router,
  deps: RouteDeps,
  authorize: Authorize,
  options?: DeclareOptions<C>,
): Routes<C> {
  const callerOf = options?.caller ?? (requireIdentity as unknown as (req: Request) => C);
  function writeRoute<
    P extends Schema = undefined,
    Q extends Schema = undefined,
    B extends Schema = undefined,
    R = unknown,
  >(method: Method, path: string, route: CommandRoute<P, Q, B, R, C>): void {
    router[method](path, async (req, res) => {
      const input = await steps(req, route, deps, authorize, callerOf);
      const result = await route.command(input);
      if (route.awaits && route.awaits.length > 0) {
        const position = positionOf(result);
        if (position) await deps.reactors.waitFor(position, deps.config.projectionWaitMs, route.awaits);
      }
      const status = typeof route.status === 'function' ? route.status(result) : (route.status ?? 200);
      answer(res, status, route.respond ? await route.respond(result, input) : result);
    });
  }
  function readRoute<
    P extends Schema = undefined,
    Q extends Schema = undefined,
    B extends Schema = undefined,
    R = unknown,
  >(method: Method, path: string, route: QueryRoute<P, Q, B, R, C>): void {
    router[method](path, async (req, res) => {
      const input = await steps(req, route, deps, authorize, callerOf);
      const result = await route.read(input);
      if ((result === null || result === undefined) && route.notFound) throw new NotFound(route.notFound);
      answer(res, route.status ?? 200, route.respond ? await route.respond(result as NonNullable<R>, input) : result);
    });
  }
  const write =
    (method: Method): Write<C> =>
    (path, route) =>
      writeRoute(method, path, route);
  return {
    get<P extends Schema = undefined, Q extends Schema = undefined, R = unknown>(
      path: string,
      route: QueryRoute<P, Q, undefined, R, C> & { body?: undefined },
    ): void {
      readRoute<P, Q, undefined, R>('get', path, route);
    },
    post: write('post'),
    put: write('put'),
    patch: write('patch'),
    delete: write('delete'),
    search<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined, R = unknown>(
      path: string,
      route: QueryRoute<P, Q, B, R, C>,
    ): void {
      readRoute<P, Q, B, R>('post', path, route);
    },
  };
}
