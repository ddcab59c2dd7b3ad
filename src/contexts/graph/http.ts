import { Router } from 'express';
import { addRelationshipRule, AddRelationshipRuleBody } from '../../../commands/graph/add-relationship-rule';
import { changeEntityType, ChangeEntityTypeBody } from '../../../commands/graph/change-entity-type';
import { changeRelationshipType, ChangeRelationshipTypeBody } from '../../../commands/graph/change-relationship-type';
import { createEdge, CreateEdgeBody } from '../../../commands/graph/create-edge';
import { createEntity, CreateEntityBody } from '../../../commands/graph/create-entity';
import { defineEntityType, DefineEntityTypeBody } from '../../../commands/graph/define-entity-type';
import { defineRelationshipType, DefineRelationshipTypeBody } from '../../../commands/graph/define-relationship-type';
import { deleteEntity } from '../../../commands/graph/delete-entity';
import { removeEntityType } from '../../../commands/graph/remove-entity-type';
import { removeRelationshipRule } from '../../../commands/graph/remove-relationship-rule';
import { removeRelationshipType } from '../../../commands/graph/remove-relationship-type';
import { resolveVertex } from '../../../commands/graph/resolve-vertex';
import { SeedBody, seedGraph } from '../../../commands/graph/seed-graph';
import { formPrDue } from '../compliance';
import { updateEntity, UpdateEntityBody } from '../../../commands/graph/update-entity';
import { updateWellProduction, WellProductionBody } from '../../../commands/graph/update-well-production';
import { edgesOf, listVertices } from '../../../queries/graph/entities';
import {
  cachedSchemaSettings,
  findEntityType,
  findRelationshipRule,
  isVertexLabel,
  findRelationshipType,
  listEntityTypes,
  listRelationshipRules,
  listRelationshipTypes,
} from '../../../queries/graph/graph-schema';
import { impactOf, type ImpactDirection } from '../../../queries/graph/impact';
import { infrastructureTree } from '../../../queries/graph/infrastructure-tree';
import { managedContext } from '../../../queries/graph/managed-context';
import { runTemplate } from '../../../queries/graph/query-templates';
import { wellContext } from '../../../queries/graph/well-context';
import { namespaceOf } from '../../../streams/graph/names';
import { newId } from '../../platform/command-handling/idempotency';
import type { PlatformDeps } from '../../platform/context-module';
import { Forbidden, NotFound, ValidationFailed } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';
import { type Authorize, declareRoutes } from '../../platform/http/route';
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

/** The knowledge graph, impact analysis and the run-time entity schema. */

/** The optional `tenant_id` may only name the caller's own tenant (a tenant never reads another's graph). */
function namespaceFor(tenantId: string, requested?: string): string {
  if (requested && requested.toLowerCase() !== tenantId.toLowerCase())
    throw new Forbidden("tenant_id must be the caller's own tenant");
  return namespaceOf(tenantId);
}

const CONFIGURE = 'graph.configure';

/** Schema writes need graph.configure whatever SVC_AUTH_MODE says. */
const authorize: Authorize = (req, permission) => {
  if (!requireIdentity(req).permissions.includes(permission)) throw new Forbidden(`${permission} permission required`);
};

export function createGraphApi(deps: PlatformDeps): Router {
  const { knex } = deps;
  const settings = cachedSchemaSettings(knex);
  const router = Router();

  const route = declareRoutes(router, deps, authorize);
  type Caller = { identity: { tenantId: string } };
  const rootOf = ({ identity }: Caller, label: string, id: string, loc?: [string, string]) =>
    resolveVertex(knex, namespaceFor(identity.tenantId), label, id, loc);

  route.post('/graph/entities', {
    body: CreateEntityBody,
    status: 201,
    command: ({ identity, body }) => createEntity(deps, identity, body, newId(identity.tenantId, 'graph.vertex')),
  });
  route.get('/graph/entities/:label', {
    params: LabelParams,
    query: EntityListQuery,
    read: async ({ identity, params: { label }, query }) => {
      if (!(await isVertexLabel(knex, label)))
        throw new ValidationFailed([
          {
            loc: ['path', 'label'],
            msg: `unknown vertex label '${label}' (see GET /entity-types)`,
            type: 'value_error.label',
          },
        ]);
      return { entities: await listVertices(knex, namespaceFor(identity.tenantId), label, query.limit, query.offset) };
    },
  });
  route.get('/graph/entities/:label/:id', {
    params: VertexPath,
    read: (input) => rootOf(input, input.params.label, input.params.id),
  });
  route.put('/graph/entities/Well/:id/production', {
    params: IdParams,
    body: WellProductionBody,
    command: ({ identity, params, body }) => updateWellProduction(deps, identity, params.id, body),
  });
  route.put('/graph/entities/:label/:id', {
    params: VertexPath,
    body: UpdateEntityBody,
    command: ({ identity, params, body }) => updateEntity(deps, identity, params.label, params.id, body),
  });
  route.delete('/graph/entities/:label/:id', {
    params: VertexPath,
    command: ({ identity, params }) => deleteEntity(deps, identity, params.label, params.id),
  });

  route.post('/graph/edges', {
    body: CreateEdgeBody,
    status: 201,
    command: ({ identity, body }) => createEdge(deps, identity, body, newId(identity.tenantId, 'graph.edge')),
  });
  route.get('/graph/edges/:label/:id', {
    params: VertexPath,
    query: EdgesQuery,
    read: async (input) => {
      const vertex = await rootOf(input, input.params.label, input.params.id);
      const { query } = input;
      const edges = await edgesOf(knex, namespaceFor(input.identity.tenantId), vertex.id, {
        edgeLabel: query.edge_label,
        direction: query.direction,
        limit: query.limit,
      });
      return {
        vertex: { id: vertex.id, label: vertex.label, entity_id: vertex.entity_id },
        edges,
        count: edges.length,
      };
    },
  });

  route.search('/graph/query-template', {
    query: TenantOnlyQuery,
    body: TemplateBody,
    read: ({ identity, query, body }) =>
      runTemplate(knex, namespaceFor(identity.tenantId, query.tenant_id), body.template_id, body.params),
  });
  // Raw graph-query text is never reachable.
  router.all('/graph/query', () => {
    throw new NotFound('Not Found');
  });

  route.get('/graph/context/managed/:id', {
    params: IdParams,
    query: ContextQuery,
    read: async ({ identity, params, query }) =>
      managedContext(knex, await settings(), namespaceFor(identity.tenantId, query.tenant_id), params.id, query),
  });
  route.get('/graph/context/:well_api', {
    params: WellApiParams,
    read: ({ identity, params }) => wellContext(knex, namespaceFor(identity.tenantId), params.well_api),
  });

  route.post('/graph/seed', {
    body: SeedBody,
    status: 201,
    command: async ({ identity, body }) => {
      const seeded = await seedGraph(deps, identity, body, { formPrDue });
      // The sample portfolio comes with what other contexts seed beside it (monitoring's event types).
      for (const context of deps.contexts)
        await context.seedSamples?.(deps, { tenantId: identity.tenantId, actorId: identity.userId });
      return seeded;
    },
  });

  route.get('/impact/tree', {
    query: TreeQuery,
    read: async (input) => {
      const root = await rootOf(input, input.query.root_label, input.query.root_id, ['query', 'root_label']);
      return infrastructureTree(
        knex,
        await settings(),
        namespaceFor(input.identity.tenantId),
        root,
        input.query.max_depth,
      );
    },
  });
  for (const [path, direction] of [
    ['/impact/outward', 'outward'],
    ['/impact/inward', 'inward'],
    ['/impact', 'both'],
  ] as const) {
    route.get(`${path}/:label/:id`, {
      params: VertexPath,
      query: ImpactQuery,
      read: async (input) => {
        const root = await rootOf(input, input.params.label, input.params.id);
        return impactOf(
          knex,
          await settings(),
          namespaceFor(input.identity.tenantId),
          root,
          direction as ImpactDirection,
          input.query,
        );
      },
    });
  }

  // Entity schema: reads are public paths (anyone, a stamped identity or none); writes need graph.configure.
  const anyone = declareRoutes(router, deps, authorize, { caller: () => null });
  anyone.get('/entity-types', { read: async () => ({ entity_types: await listEntityTypes(knex) }) });
  anyone.get('/entity-types/:key', {
    params: TypeKeyParams,
    read: async ({ params: { key } }) => {
      const type = await findEntityType(knex, key);
      if (!type) throw new NotFound(`entity type '${key}' not found`);
      return type;
    },
  });
  route.post('/entity-types', {
    permission: CONFIGURE,
    body: DefineEntityTypeBody,
    status: 201,
    command: ({ identity, body }) => defineEntityType(deps, identity, body),
  });
  for (const method of ['put', 'patch'] as const) {
    route[method]('/entity-types/:key', {
      permission: CONFIGURE,
      params: TypeKeyParams,
      body: ChangeEntityTypeBody,
      command: ({ identity, params, body }) => changeEntityType(deps, identity, params.key, body),
    });
    route[method]('/relationship-types/:key', {
      permission: CONFIGURE,
      params: TypeKeyParams,
      body: ChangeRelationshipTypeBody,
      command: ({ identity, params, body }) => changeRelationshipType(deps, identity, params.key, body),
    });
  }
  route.delete('/entity-types/:key', {
    permission: CONFIGURE,
    params: TypeKeyParams,
    status: 204,
    command: ({ identity, params }) => removeEntityType(deps, identity, params.key),
  });

  anyone.get('/relationship-types', {
    read: async () => ({ relationship_types: await listRelationshipTypes(knex) }),
  });
  anyone.get('/relationship-types/:key', {
    params: TypeKeyParams,
    read: async ({ params: { key } }) => {
      const type = await findRelationshipType(knex, key);
      if (!type) throw new NotFound(`relationship type '${key}' not found`);
      return type;
    },
  });
  route.post('/relationship-types', {
    permission: CONFIGURE,
    body: DefineRelationshipTypeBody,
    status: 201,
    command: ({ identity, body }) => defineRelationshipType(deps, identity, body),
  });
  route.delete('/relationship-types/:key', {
    permission: CONFIGURE,
    params: TypeKeyParams,
    status: 204,
    command: ({ identity, params }) => removeRelationshipType(deps, identity, params.key),
  });

  anyone.get('/relationship-rules', {
    query: RulesQuery,
    read: async ({ query }) => ({ relationship_rules: await listRelationshipRules(knex, query) }),
  });
  anyone.get('/relationship-rules/:id', {
    params: RuleIdParams,
    read: async ({ params: { id } }) => {
      const rule = await findRelationshipRule(knex, id);
      if (!rule) throw new NotFound(`relationship rule '${id}' not found`);
      return rule;
    },
  });
  route.post('/relationship-rules', {
    permission: CONFIGURE,
    body: AddRelationshipRuleBody,
    status: 201,
    command: ({ identity, body }) =>
      addRelationshipRule(deps, identity, body, newId(identity.tenantId, 'graph.relationship-rule')),
  });
  route.delete('/relationship-rules/:id', {
    permission: CONFIGURE,
    params: RuleIdParams,
    status: 204,
    command: ({ identity, params }) => removeRelationshipRule(deps, identity, params.id),
  });

  return router;
}
