/**
 * The permission catalogue and role→permission matrix (docs/identity.md
 * lists it). A user's permissions are the union over their roles, resolved per request.
 * Add a permission here together with the context that checks it.
 */
export const ROLES = ['admin', 'operator', 'reviewer', 'power_user'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = {
  'conversations.use': 'chat with agents, own conversations and projects',
  'dashboards.read': 'read compliance dashboards and the knowledge graph',
  'filings.submit': 'submit filing checklists',
  'compliance.assess': 'record a compliance assessment of the portfolio or of one entity',
  'hitl.approve': 'decide and escalate human-in-the-loop approvals',
  'skills.author': 'edit agent skills',
  'exposures.propose': 'read connectors and propose guarded queries',
  'exposures.approve': 'approve, reject and retire guarded queries',
  'connectors.manage': 'register connectors and set their credentials',
  'users.manage': 'create, edit, deactivate users and issue resets',
  'roles.grant': "change a user's roles",
  'settings.manage': 'change tenant settings and per-user budget overrides',
  'graph.configure': 'change entity types, relationship types and rules',
  'ingest.run': 'run ingestion (scrapes, CSV, SCADA)',
  'prompts.author': 'draft and promote prompt versions',
  'prompts.approve': 'approve prompt versions for production',
  'events.configure': 'change operational event types and their rules',
  'audit.read': 'read, replay and export the signed audit trail (admin review)',
  'evals.manage': 'promote evaluation runs to the baseline of their model',
  'system.operate': "see the processing runtime's lanes, leaders and dead letters, and retry dead letters",
} as const;
export type Permission = keyof typeof PERMISSIONS;

const EVERYONE: Permission[] = ['conversations.use', 'dashboards.read'];

export const ROLE_PERMISSIONS: Record<Role, Permission[]> = {
  admin: Object.keys(PERMISSIONS) as Permission[],
  operator: [...EVERYONE, 'filings.submit', 'compliance.assess'],
  reviewer: [...EVERYONE, 'hitl.approve'],
  power_user: [
    ...EVERYONE,
    'skills.author',
    'exposures.propose',
    'graph.configure',
    'ingest.run',
    'prompts.author',
    'events.configure',
  ],
};

export function permissionsFor(roles: readonly string[]): Permission[] {
  const granted = new Set<Permission>();
  for (const role of roles) for (const p of ROLE_PERMISSIONS[role as Role] ?? []) granted.add(p);
  return [...granted].sort();
}
