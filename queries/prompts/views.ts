import type { Validation } from '../../streams/prompts/template';

/** Read-model rows in the API's wire shape. */
const iso = (value: unknown): string | null =>
  value === null || value === undefined
    ? null
    : (value instanceof Date ? value : new Date(String(value))).toISOString();

export function validationView(v: Validation) {
  return {
    valid: v.valid,
    syntax_ok: v.syntaxOk,
    subset_ok: v.subsetOk,
    injection_scan: v.injectionScan,
    token_estimate: v.tokenEstimate,
    variables_extracted: v.variablesExtracted,
    unknown_variables: v.unknownVariables,
    errors: v.errors,
    warnings: v.warnings,
  };
}

export type VersionView = ReturnType<typeof versionView>;

export function versionView(r: Record<string, any>) {
  return {
    id: r.id as string,
    template_id: r.template_id as string,
    version_number: Number(r.version_number),
    status: r.status as string,
    body: r.body as string,
    rendered_token_estimate: Number(r.rendered_token_estimate),
    validation_result: validationView(r.validation_result as Validation),
    author_id: r.author_id as string,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at),
    change_note: r.change_note as string,
    target_users: r.target_users as string[],
    target_roles: r.target_roles as string[],
    pre_production_at: iso(r.pre_production_at),
    approved_by: (r.approved_by as string | null) ?? null,
    approved_at: iso(r.approved_at),
    rejected_by: (r.rejected_by as string | null) ?? null,
    rejected_at: iso(r.rejected_at),
    reject_reason: (r.reject_reason as string | null) ?? null,
    promoted_by: (r.promoted_by as string | null) ?? null,
    promoted_at: iso(r.promoted_at),
    retired_at: iso(r.retired_at),
  };
}

export function namespaceView(r: Record<string, any>) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function tierView(r: Record<string, any>) {
  return {
    id: r.id,
    namespace_id: r.namespace_id,
    name: r.name,
    max_tokens: Number(r.max_tokens),
    description: r.description,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function templateView(r: Record<string, any>) {
  return {
    id: r.id,
    namespace_id: r.namespace_id,
    namespace: r.namespace_name,
    slug: r.slug,
    ref: `${r.namespace_name}:${r.slug}`,
    name: r.name,
    description: r.description,
    budget_tier_id: r.budget_tier_id ?? null,
    variables: r.variables ?? null,
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    active_version_id: r.active_version_id ?? null,
    active_version_number:
      r.active_version_number === null || r.active_version_number === undefined
        ? null
        : Number(r.active_version_number),
    pre_production_version_id: r.pre_production_version_id ?? null,
  };
}

export { iso };
