/**
 * Where graph facts live. A tenant's property graph is a namespace named from the tenant
 * uuid without dashes and the logical graph name `oilgas`; every read-model
 * row carries it and every query filters by it.
 */
export const GRAPH_NAME = 'oilgas';

export const namespaceOf = (tenantId: string) => `${tenantId.replace(/-/g, '').toLowerCase()}_${GRAPH_NAME}`;

export const vertexStream = (tenantId: string, vertexId: string) => `graph.vertex-${tenantId}-${vertexId}`;
export const edgeStream = (tenantId: string, edgeId: string) => `graph.edge-${tenantId}-${edgeId}`;
/** Bulk loads (seed, ingestion): each event carries a batch of vertices and edges. */
export const importStream = (tenantId: string, importId: string) => `graph.import-${tenantId}-${importId}`;

/** Entity and relationship configuration is platform-wide: its reads are public. */
export const SCHEMA_SCOPE = 'global';
export const verticalStream = (vertical: string, version: number) =>
  `graph.vertical-${SCHEMA_SCOPE}-${vertical}-v${version}`;
export const entityTypeStream = (key: string) => `graph.entity-type-${SCHEMA_SCOPE}-${key}`;
export const relationshipTypeStream = (key: string) => `graph.relationship-type-${SCHEMA_SCOPE}-${key}`;
export const relationshipRuleStream = (id: string) => `graph.relationship-rule-${SCHEMA_SCOPE}-${id}`;
