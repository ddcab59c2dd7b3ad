import { z, type ApiDescription } from '../../platform/openapi/describe';
import { AddRelationshipRuleBody } from '../../../commands/graph/add-relationship-rule';
import { ChangeEntityTypeBody } from '../../../commands/graph/change-entity-type';
import { ChangeRelationshipTypeBody } from '../../../commands/graph/change-relationship-type';
import { CreateEdgeBody } from '../../../commands/graph/create-edge';
import { CreateEntityBody } from '../../../commands/graph/create-entity';
import { DefineEntityTypeBody } from '../../../commands/graph/define-entity-type';
import { DefineRelationshipTypeBody } from '../../../commands/graph/define-relationship-type';
import { SeedBody } from '../../../commands/graph/seed-graph';
import { UpdateEntityBody } from '../../../commands/graph/update-entity';
import { WellProductionBody } from '../../../commands/graph/update-well-production';
import {
  EntityTypeDefinition,
  RelationshipRuleDefinition,
  RelationshipTypeDefinition,
} from '../../../streams/graph/schema';
import {
  ContextQuery,
  EdgesQuery,
  EntityListQuery,
  IdParams,
  ImpactQuery,
  LabelParams,
  RuleIdParams,
  RulesQuery,
  TemplateBody,
  TenantOnlyQuery,
  TreeQuery,
  TypeKeyParams,
  VertexPath,
  WellApiParams,
} from './schemas';

/** The knowledge graph, impact analysis and the entity schema in the API contract. */
const Vertex = z
  .object({ id: z.string(), label: z.string(), entity_id: z.string(), properties: z.record(z.unknown()) })
  .openapi('Vertex');
const Edge = z
  .object({
    id: z.string(),
    edge_label: z.string(),
    from_id: z.string(),
    from_label: z.string(),
    to_id: z.string(),
    to_label: z.string(),
    properties: z.record(z.unknown()),
  })
  .openapi('Edge');
const EntityType = EntityTypeDefinition.extend({ source: z.string(), updated_at: z.string() }).openapi('EntityType');
const RelationshipType = RelationshipTypeDefinition.extend({ source: z.string(), updated_at: z.string() }).openapi(
  'RelationshipType',
);
const RelationshipRule = RelationshipRuleDefinition.extend({ source: z.string() }).openapi('RelationshipRule');
const Impact = z
  .object({
    root: z.object({
      id: z.string(),
      label: z.string(),
      entity_id: z.string(),
      name: z.string().nullable().optional(),
    }),
    direction: z.enum(['outward', 'inward', 'both']),
    max_depth: z.number().int(),
    depth_reached: z.number().int(),
    summary: z.object({
      total_affected: z.number().int(),
      by_label: z.record(z.number()),
      by_depth: z.record(z.number()),
      wells_affected: z.number().int(),
    }),
    economic_impact: z.record(z.unknown()),
    affected: z.array(z.record(z.unknown())),
    truncated: z.boolean(),
  })
  .openapi('Impact');
const schemaRead = { auth: 'public' as const };

export const graphApi: ApiDescription = {
  tag: 'graph',
  public: () => [
    {
      method: 'post',
      path: '/graph/entities',
      summary: 'Create an entity (a vertex of a configured label)',
      body: CreateEntityBody,
      responses: { 201: Vertex },
    },
    {
      method: 'get',
      path: '/graph/entities/:label',
      summary: 'Entities of one label',
      params: LabelParams,
      query: EntityListQuery,
      responses: { 200: z.object({ entities: z.array(Vertex).max(1000) }) },
    },
    {
      method: 'get',
      path: '/graph/entities/:label/:id',
      summary: 'One entity by vertex id or entity id',
      params: VertexPath,
      responses: { 200: Vertex },
    },
    {
      method: 'put',
      path: '/graph/entities/Well/:id/production',
      summary: "Record a well's production figures",
      params: IdParams,
      body: WellProductionBody,
      responses: { 200: Vertex },
    },
    {
      method: 'put',
      path: '/graph/entities/:label/:id',
      summary: "Change an entity's properties",
      params: VertexPath,
      body: UpdateEntityBody,
      responses: { 200: Vertex },
    },
    {
      method: 'delete',
      path: '/graph/entities/:label/:id',
      summary: 'Delete an entity and its edges',
      params: VertexPath,
      responses: {
        200: z.object({
          id: z.string(),
          label: z.string(),
          entity_id: z.string(),
          deleted: z.literal(true),
          edges_deleted: z.number().int(),
        }),
      },
    },
    {
      method: 'post',
      path: '/graph/edges',
      summary: 'Create an edge allowed by the relationship rules',
      body: CreateEdgeBody,
      responses: { 201: Edge },
    },
    {
      method: 'get',
      path: '/graph/edges/:label/:id',
      summary: 'Edges of one entity',
      params: VertexPath,
      query: EdgesQuery,
      responses: {
        200: z.object({
          vertex: z.object({ id: z.string(), label: z.string(), entity_id: z.string() }),
          edges: z.array(z.record(z.unknown())),
          count: z.number().int(),
        }),
      },
    },
    {
      method: 'post',
      path: '/graph/query-template',
      summary: 'Run a named, parameterised query template',
      query: TenantOnlyQuery,
      body: TemplateBody,
      responses: { 200: z.object({ results: z.array(z.unknown()), count: z.number().int() }).passthrough() },
    },
    {
      method: 'get',
      path: '/graph/query',
      summary: 'Raw graph queries are never reachable (always 404)',
      responses: {},
    },
    {
      method: 'post',
      path: '/graph/query',
      summary: 'Raw graph queries are never reachable (always 404)',
      responses: {},
    },
    {
      method: 'get',
      path: '/graph/context/managed/:id',
      summary: 'Agent context for one entity: structured walk and a token-bounded text',
      params: IdParams,
      query: ContextQuery,
      responses: {
        200: z
          .object({
            entity_id: z.string(),
            vertex_id: z.string(),
            entity_type: z.object({ key: z.string(), label: z.string(), display_name: z.string() }),
            domain_tags: z.array(z.string()),
            structured: z.record(z.unknown()),
            context_text: z.string(),
            token_estimate: z.number(),
            truncation_occurred: z.boolean(),
          })
          .passthrough(),
      },
    },
    {
      method: 'get',
      path: '/graph/context/:well_api',
      summary: "A well's neighbourhood: lease, field, offsets, authorizations, deadlines, infrastructure",
      params: WellApiParams,
      responses: {
        200: z.object({
          well: z.record(z.unknown()),
          lease: z.record(z.unknown()).nullable(),
          field: z.record(z.unknown()).nullable(),
          offset_wells: z.array(z.record(z.unknown())),
          flaring_authorizations: z.array(z.record(z.unknown())),
          compliance_deadlines: z.array(z.record(z.unknown())),
          infrastructure: z.array(z.record(z.unknown())),
        }),
      },
    },
    {
      method: 'post',
      path: '/graph/seed',
      summary: 'Generate and import a synthetic oil-and-gas graph',
      body: SeedBody,
      responses: {
        201: z
          .object({
            wells: z.number(),
            entities: z.number(),
            generate_seconds: z.number(),
            import_seconds: z.number(),
            entities_per_second: z.number(),
          })
          .passthrough(),
      },
    },
    {
      method: 'get',
      path: '/impact/tree',
      summary: 'The infrastructure tree under a root entity',
      query: TreeQuery,
      responses: {
        200: z.object({
          root: z.record(z.unknown()),
          vertices: z.number().int(),
          max_depth: z.number().int(),
          edge_labels: z.array(z.string()),
          truncated: z.boolean(),
        }),
      },
    },
    {
      method: 'get',
      path: '/impact/outward/:label/:id',
      summary: 'What an entity affects downstream, with economic impact',
      params: VertexPath,
      query: ImpactQuery,
      responses: { 200: Impact },
    },
    {
      method: 'get',
      path: '/impact/inward/:label/:id',
      summary: 'What an entity depends on upstream',
      params: VertexPath,
      query: ImpactQuery,
      responses: { 200: Impact },
    },
    {
      method: 'get',
      path: '/impact/:label/:id',
      summary: 'Impact in both directions',
      params: VertexPath,
      query: ImpactQuery,
      responses: { 200: Impact },
    },
    {
      method: 'get',
      path: '/entity-types',
      ...schemaRead,
      summary: 'Configured entity types',
      responses: { 200: z.object({ entity_types: z.array(EntityType) }) },
    },
    {
      method: 'get',
      path: '/entity-types/:key',
      ...schemaRead,
      summary: 'One entity type',
      params: TypeKeyParams,
      responses: { 200: EntityType },
    },
    {
      method: 'post',
      path: '/entity-types',
      summary: 'Define an entity type (graph.configure)',
      body: DefineEntityTypeBody,
      responses: { 201: EntityTypeDefinition },
    },
    {
      method: 'put',
      path: '/entity-types/:key',
      summary: 'Change an entity type (graph.configure)',
      params: TypeKeyParams,
      body: ChangeEntityTypeBody,
      responses: { 200: EntityTypeDefinition },
    },
    {
      method: 'patch',
      path: '/entity-types/:key',
      summary: 'Change an entity type (graph.configure)',
      params: TypeKeyParams,
      body: ChangeEntityTypeBody,
      responses: { 200: EntityTypeDefinition },
    },
    {
      method: 'delete',
      path: '/entity-types/:key',
      summary: 'Remove an entity type (graph.configure)',
      params: TypeKeyParams,
      responses: { 204: null },
    },
    {
      method: 'get',
      path: '/relationship-types',
      ...schemaRead,
      summary: 'Configured relationship types',
      responses: { 200: z.object({ relationship_types: z.array(RelationshipType) }) },
    },
    {
      method: 'get',
      path: '/relationship-types/:key',
      ...schemaRead,
      summary: 'One relationship type',
      params: TypeKeyParams,
      responses: { 200: RelationshipType },
    },
    {
      method: 'post',
      path: '/relationship-types',
      summary: 'Define a relationship type (graph.configure)',
      body: DefineRelationshipTypeBody,
      responses: { 201: RelationshipTypeDefinition },
    },
    {
      method: 'put',
      path: '/relationship-types/:key',
      summary: 'Change a relationship type (graph.configure)',
      params: TypeKeyParams,
      body: ChangeRelationshipTypeBody,
      responses: { 200: RelationshipTypeDefinition },
    },
    {
      method: 'patch',
      path: '/relationship-types/:key',
      summary: 'Change a relationship type (graph.configure)',
      params: TypeKeyParams,
      body: ChangeRelationshipTypeBody,
      responses: { 200: RelationshipTypeDefinition },
    },
    {
      method: 'delete',
      path: '/relationship-types/:key',
      summary: 'Remove a relationship type (graph.configure)',
      params: TypeKeyParams,
      responses: { 204: null },
    },
    {
      method: 'get',
      path: '/relationship-rules',
      ...schemaRead,
      summary: 'Which labels an edge label may connect',
      query: RulesQuery,
      responses: { 200: z.object({ relationship_rules: z.array(RelationshipRule) }) },
    },
    {
      method: 'get',
      path: '/relationship-rules/:id',
      ...schemaRead,
      summary: 'One relationship rule',
      params: RuleIdParams,
      responses: { 200: RelationshipRule },
    },
    {
      method: 'post',
      path: '/relationship-rules',
      summary: 'Add a relationship rule (graph.configure)',
      body: AddRelationshipRuleBody,
      responses: { 201: RelationshipRuleDefinition },
    },
    {
      method: 'delete',
      path: '/relationship-rules/:id',
      summary: 'Remove a relationship rule (graph.configure)',
      params: RuleIdParams,
      responses: { 204: null },
    },
  ],
};
