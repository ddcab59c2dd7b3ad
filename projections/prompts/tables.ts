/** Read-model tables of the prompts context (one definition, shared by projectors and queries). */
export const NAMESPACES_TABLE = 'prompts_namespaces';
export const TIERS_TABLE = 'prompts_budget_tiers';
export const TEMPLATES_TABLE = 'prompts_templates';
export const VERSIONS_TABLE = 'prompts_versions';
export const AUDIT_TABLE = 'prompts_audit_log';
