import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { TEMPLATES_TABLE, VERSIONS_TABLE } from '../../projections/prompts/tables';
import type { Cache } from '../../src/platform/infra/cache';
import {
  pickVersion,
  promptResolveCache,
  type ServeableVersion,
  type TemplateResolution,
} from '../../commands/prompts/resolve-cache';
import type { Validation } from '../../streams/prompts/template';

export interface ResolveDeps {
  knex: Knex;
  cache: Cache;
  logger: Logger;
}

export interface PromptRef {
  namespace: string;
  slug: string;
}

/** `<namespace>:<slug>`, or null when the text is not one. */
export function parsePromptRef(ref: string): PromptRef | null {
  const match = /^([a-z][a-z0-9_-]{0,63}):([a-z][a-z0-9_-]{0,63})$/.exec(ref);
  return match ? { namespace: match[1], slug: match[2] } : null;
}

/** The serveable versions of a template, straight from the read model (a cache miss). */
export async function loadResolution(knex: Knex, tenantId: string, ref: PromptRef): Promise<TemplateResolution | null> {
  const rows = await knex(`${TEMPLATES_TABLE} as t`)
    .select(
      't.id as template_id',
      'v.id',
      'v.version_number',
      'v.status',
      'v.body',
      'v.rendered_token_estimate',
      'v.validation_result',
      'v.target_users',
      'v.target_roles',
    )
    .leftJoin(`${VERSIONS_TABLE} as v`, (j) =>
      j.on('v.template_id', 't.id').andOnIn('v.status', ['active', 'pre_production']),
    )
    .where({ 't.tenant_id': tenantId, 't.namespace_name': ref.namespace, 't.slug': ref.slug });
  if (rows.length === 0) return null;
  const resolution: TemplateResolution = { templateId: rows[0].template_id, active: null, preProduction: null };
  for (const r of rows) {
    if (!r.id) continue;
    const version: ServeableVersion = {
      versionId: r.id,
      versionNumber: Number(r.version_number),
      status: r.status,
      body: r.body,
      tokenEstimate: Number(r.rendered_token_estimate),
      variablesExpected: (r.validation_result as Validation).variablesExtracted,
    };
    Object.freeze(version.variablesExpected);
    if (r.status === 'active') resolution.active = Object.freeze(version);
    else
      resolution.preProduction = Object.freeze({
        ...version,
        targetUsers: new Set<string>(r.target_users),
        targetRoles: Object.freeze([...(r.target_roles as string[])]),
      });
  }
  return resolution;
}

/**
 * The version a caller gets for `<namespace>:<slug>` (the hot path): pre-production when
 * the caller is targeted, else active; null when the template or a serveable version does
 * not exist. From the in-process cache when it holds the template.
 */
export async function resolveServeable(
  deps: ResolveDeps,
  input: { tenantId: string; userId: string | null; roles: readonly string[]; ref: string },
): Promise<ServeableVersion | null> {
  const cache = promptResolveCache(deps);
  const hit = cache.lookup(input.tenantId, input.ref, input.userId, input.roles);
  if (hit !== undefined) return hit;
  const ref = parsePromptRef(input.ref);
  if (!ref) return null;
  const epoch = cache.currentEpoch;
  const resolution = await loadResolution(deps.knex, input.tenantId, ref);
  cache.store(input.tenantId, input.ref, resolution, epoch);
  return pickVersion(resolution, input.userId, input.roles);
}

export interface ResolvedPrompt {
  body: string;
  version_id: string;
  version_number: number;
  /** `active`, or `pre_production` when the caller is in the version's test audience. */
  source: 'active' | 'pre_production';
}

/**
 * For other contexts (the agents' `system_prompt_node`): the caller's prompt for a template
 * reference, or null when no template or no serveable version exists (use the built-in one).
 */
export async function resolvePrompt(
  deps: ResolveDeps,
  input: { tenantId: string; userId?: string | null; roles?: readonly string[]; ref: string },
): Promise<ResolvedPrompt | null> {
  const version = await resolveServeable(deps, {
    tenantId: input.tenantId,
    userId: input.userId ?? null,
    roles: input.roles ?? [],
    ref: input.ref,
  });
  return version
    ? {
        body: version.body,
        version_id: version.versionId,
        version_number: version.versionNumber,
        source: version.status,
      }
    : null;
}

/**
 * The template an agent type's system prompt comes from: `agents:<agent type as a slug>`
 * (e.g. `compliance_checker` → `agents:compliance_checker`). The agents' system_prompt_node
 * resolves it and keeps its built-in prompt when this answers null.
 */
export function systemPromptRef(agentType: string): string {
  const slug = agentType
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 64);
  return `agents:${slug || 'default'}`;
}
