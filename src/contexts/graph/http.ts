import { Request, Router } from 'express';
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
import { cachedSchemaSettings, findEntityType, findRelationshipRule, isVertexLabel, findRelationshipType, listEntityTypes, listRelationshipRules, listRelationshipTypes } from '../../../queries/graph/graph-schema';
import { impactOf, ImpactDirection } from '../../../queries/graph/impact';
import { infrastructureTree } from '../../../queries/graph/infrastructure-tree';
import { managedContext } from '../../../queries/graph/managed-context';
import { runTemplate } from '../../../queries/graph/query-templates';
import { wellContext } from '../../../queries/graph/well-context';
import { namespaceOf } from '../../../streams/graph/names';
import { newId } from '../../platform/command-handling/idempotency';
import type { PlatformDeps } from '../../platform/context-module';
import { Forbidden, NotFound, ValidationFailed } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { ContextQuery, EdgesQuery, EntityListQuery, IdParams, ImpactQuery, LabelParams, RuleIdParams, RulesQuery, TemplateBody, TenantOnlyQuery, TreeQuery, TypeKeyParams, VertexPath, WellApiParams } from './schemas';

/** The knowledge graph, impact analysis and the run-time entity schema. */


function actorOf(req: Request) {
  const { tenantId, userId } = requireIdentity(req);
  return { tenantId, userId };
}

/** The optional `tenant_id` may only name the caller's own tenant (a tenant never reads another's graph). */
function namespaceFor(req: Request, requested?: string): string {
  const { tenantId } = requireIdentity(req);
  if (requested && requested.toLowerCase() !== tenantId.toLowerCase()) throw new Forbidden('tenant_id must be the caller\'s own tenant');
  return namespaceOf(tenantId);
}

function configurer(req: Request) {
  const identity = requireIdentity(req);
  if (!identity.permissions.includes('graph.configure')) throw new Forbidden('graph.configure permission required');
  return { tenantId: identity.tenantId, userId: identity.userId };
}

export function createGraphApi(deps: PlatformDeps): Router {
  const { knex } = deps;
  const settings = cachedSchemaSettings(knex);
  const router = Router();

  router.post('/graph/entities', async (req, res) => {
    const body = parseBody(req, CreateEntityBody);
    const actor = actorOf(req);
    res.status(201).json(await createEntity(deps, actor, body, newId(actor.tenantId, 'graph.vertex')));
  });
  router.get('/graph/entities/:label', async (req, res) => {
    const { label } = parseParams(req, LabelParams);
    const { limit, offset } = parseQuery(req, EntityListQuery);
    const namespace = namespaceFor(req);
    if (!(await isVertexLabel(knex, label))) throw new ValidationFailed([{ loc: ['path', 'label'], msg: `unknown vertex label '${label}' (see GET /entity-types)`, type: 'value_error.label' }]);
    res.json({ entities: await listVertices(knex, namespace, label, limit, offset) });
  });
  router.get('/graph/entities/:label/:id', async (req, res) => {
    const { label, id } = parseParams(req, VertexPath);
    res.json(await resolveVertex(knex, namespaceFor(req), label, id));
  });
  router.put('/graph/entities/Well/:id/production', async (req, res) => {
    const { id } = parseParams(req, IdParams);
    const body = parseBody(req, WellProductionBody);
    res.json(await updateWellProduction(deps, actorOf(req), id, body));
  });
  router.put('/graph/entities/:label/:id', async (req, res) => {
    const { label, id } = parseParams(req, VertexPath);
    const body = parseBody(req, UpdateEntityBody);
    res.json(await updateEntity(deps, actorOf(req), label, id, body));
  });
  router.delete('/graph/entities/:label/:id', async (req, res) => {
    const { label, id } = parseParams(req, VertexPath);
    res.json(await deleteEntity(deps, actorOf(req), label, id));
  });

  router.post('/graph/edges', async (req, res) => {
    const body = parseBody(req, CreateEdgeBody);
    const actor = actorOf(req);
    res.status(201).json(await createEdge(deps, actor, body, newId(actor.tenantId, 'graph.edge')));
  });
  router.get('/graph/edges/:label/:id', async (req, res) => {
    const { label, id } = parseParams(req, VertexPath);
    const query = parseQuery(req, EdgesQuery);
    const namespace = namespaceFor(req);
    const vertex = await resolveVertex(knex, namespace, label, id);
    const edges = await edgesOf(knex, namespace, vertex.id, { edgeLabel: query.edge_label, direction: query.direction, limit: query.limit });
    res.json({ vertex: { id: vertex.id, label: vertex.label, entity_id: vertex.entity_id }, edges, count: edges.length });
  });

  router.post('/graph/query-template', async (req, res) => {
    const { tenant_id } = parseQuery(req, TenantOnlyQuery);
    const body = parseBody(req, TemplateBody);
    res.json(await runTemplate(knex, namespaceFor(req, tenant_id), body.template_id, body.params));
  });
  // Raw graph-query text is never reachable.
  router.all('/graph/query', () => {
    throw new NotFound('Not Found');
  });

  router.get('/graph/context/managed/:id', async (req, res) => {
    const { id } = parseParams(req, IdParams);
    const query = parseQuery(req, ContextQuery);
    res.json(await managedContext(knex, await settings(), namespaceFor(req, query.tenant_id), id, query));
  });
  router.get('/graph/context/:well_api', async (req, res) => {
    const { well_api } = parseParams(req, WellApiParams);
    res.json(await wellContext(knex, namespaceFor(req), well_api));
  });

  router.post('/graph/seed', async (req, res) => {
    const body = parseBody(req, SeedBody);
    const actor = actorOf(req);
    const seeded = await seedGraph(deps, actor, body, { formPrDue });
    // The sample portfolio comes with what the running contexts add to it (monitoring: the event types field staff log).
    for (const context of deps.contexts) await context.seedSamples?.(deps, { tenantId: actor.tenantId, actorId: actor.userId });
    res.status(201).json(seeded);
  });

  router.get('/impact/tree', async (req, res) => {
    const query = parseQuery(req, TreeQuery);
    const namespace = namespaceFor(req);
    const root = await resolveVertex(knex, namespace, query.root_label, query.root_id, ['query', 'root_label']);
    res.json(await infrastructureTree(knex, await settings(), namespace, root, query.max_depth));
  });
  const impactRoute = (direction: ImpactDirection) => async (req: Request, res: import('express').Response) => {
    const { label, id } = parseParams(req, VertexPath);
    const query = parseQuery(req, ImpactQuery);
    const namespace = namespaceFor(req);
    const root = await resolveVertex(knex, namespace, label, id);
    res.json(await impactOf(knex, await settings(), namespace, root, direction, query));
  };
  router.get('/impact/outward/:label/:id', impactRoute('outward'));
  router.get('/impact/inward/:label/:id', impactRoute('inward'));
  router.get('/impact/:label/:id', impactRoute('both'));

  // Entity schema: reads are public; writes need graph.configure.
  router.get('/entity-types', async (_req, res) => {
    res.json({ entity_types: await listEntityTypes(knex) });
  });
  router.get('/entity-types/:key', async (req, res) => {
    const { key } = parseParams(req, TypeKeyParams);
    const type = await findEntityType(knex, key);
    if (!type) throw new NotFound(`entity type '${key}' not found`);
    res.json(type);
  });
  router.post('/entity-types', async (req, res) => {
    const actor = configurer(req);
    res.status(201).json(await defineEntityType(deps, actor, parseBody(req, DefineEntityTypeBody)));
  });
  for (const method of ['put', 'patch'] as const) {
    router[method]('/entity-types/:key', async (req, res) => {
      const actor = configurer(req);
      res.json(await changeEntityType(deps, actor, parseParams(req, TypeKeyParams).key, parseBody(req, ChangeEntityTypeBody)));
    });
    router[method]('/relationship-types/:key', async (req, res) => {
      const actor = configurer(req);
      res.json(await changeRelationshipType(deps, actor, parseParams(req, TypeKeyParams).key, parseBody(req, ChangeRelationshipTypeBody)));
    });
  }
  router.delete('/entity-types/:key', async (req, res) => {
    await removeEntityType(deps, configurer(req), parseParams(req, TypeKeyParams).key);
    res.status(204).end();
  });

  router.get('/relationship-types', async (_req, res) => {
    res.json({ relationship_types: await listRelationshipTypes(knex) });
  });
  router.get('/relationship-types/:key', async (req, res) => {
    const { key } = parseParams(req, TypeKeyParams);
    const type = await findRelationshipType(knex, key);
    if (!type) throw new NotFound(`relationship type '${key}' not found`);
    res.json(type);
  });
  router.post('/relationship-types', async (req, res) => {
    const actor = configurer(req);
    res.status(201).json(await defineRelationshipType(deps, actor, parseBody(req, DefineRelationshipTypeBody)));
  });
  router.delete('/relationship-types/:key', async (req, res) => {
    await removeRelationshipType(deps, configurer(req), parseParams(req, TypeKeyParams).key);
    res.status(204).end();
  });

  router.get('/relationship-rules', async (req, res) => {
    const filter = parseQuery(req, RulesQuery);
    res.json({ relationship_rules: await listRelationshipRules(knex, filter) });
  });
  router.get('/relationship-rules/:id', async (req, res) => {
    const { id } = parseParams(req, RuleIdParams);
    const rule = await findRelationshipRule(knex, id);
    if (!rule) throw new NotFound(`relationship rule '${id}' not found`);
    res.json(rule);
  });
  router.post('/relationship-rules', async (req, res) => {
    const actor = configurer(req);
    res.status(201).json(await addRelationshipRule(deps, actor, parseBody(req, AddRelationshipRuleBody), newId(actor.tenantId, 'graph.relationship-rule')));
  });
  router.delete('/relationship-rules/:id', async (req, res) => {
    await removeRelationshipRule(deps, configurer(req), parseParams(req, RuleIdParams).id);
    res.status(204).end();
  });

  return router;
}
