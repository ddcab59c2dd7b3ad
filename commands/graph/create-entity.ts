import { z } from 'zod';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict, ValidationFailed } from '../../src/platform/domain-errors';
import { creationFacts, type VertexView } from '../../queries/graph/entities';
import { namespaceOf, vertexStream } from '../../streams/graph/names';
import { type Properties, toStoredProperties } from '../../streams/graph/properties';
import { vertexAggregate, type VertexEvent, type VertexState } from '../../streams/graph/vertex';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';
import { entityIdReservation } from './entity-id-reservation';
import { boundedRecord } from '../../src/platform/http/bounded';

export const CreateEntityBody = z.object({
  label: z.string().min(1).max(64),
  properties: boundedRecord(z.unknown()).default({}),
});

export interface CreateEntity {
  type: 'CreateEntity';
  vertexId: string;
  namespace: string;
  label: string;
  entityId: string;
  properties: Properties;
  /**
   * Facts read before deciding: the label is a configured entity type; a bulk-imported
   * vertex (seed, ingestion) already carries the entity_id. Vertices created one by one are
   * guarded on the write side by the entity_id reservation appended with them.
   */
  labelKnown: boolean;
  entityIdTaken: boolean;
}

export function decideCreateEntity(command: CreateEntity, state: VertexState): VertexEvent[] {
  if (!command.labelKnown) {
    throw new ValidationFailed([
      {
        loc: ['body', 'label'],
        msg: `unknown vertex label '${command.label}' (see GET /entity-types)`,
        type: 'value_error.label',
      },
    ]);
  }
  if (state.status !== 'none') throw new Conflict('the vertex exists already');
  if (command.entityIdTaken)
    throw new Conflict(`a ${command.label} with entity_id '${command.entityId}' exists already`);
  const { vertexId, namespace, label, entityId, properties } = command;
  return [
    {
      type: 'VertexCreated',
      data: { vertexId, namespace, label, entityId, properties: { ...properties, entity_id: entityId } },
    },
  ];
}

export const createEntityDecider: Decider<CreateEntity, VertexState, VertexEvent> = {
  ...vertexAggregate,
  decide: decideCreateEntity,
};

/** `entity_id` defaults to the new vertex uuid when the caller gives none. */
export async function createEntity(
  deps: GraphCommandDeps,
  actor: GraphActor,
  body: z.infer<typeof CreateEntityBody>,
  vertexId: string,
): Promise<VertexView> {
  const namespace = namespaceOf(actor.tenantId);
  const { set } = toStoredProperties(body.properties);
  const entityId = set.entity_id ?? vertexId;
  const facts = await creationFacts(deps.knex, namespace, body.label, entityId);
  const command: CreateEntity = {
    type: 'CreateEntity',
    vertexId,
    namespace,
    label: body.label,
    entityId,
    properties: set,
    ...facts,
  };
  const { state } = await deps.handle(
    createEntityDecider,
    vertexStream(actor.tenantId, vertexId),
    command,
    commandContext(actor),
    {
      reserve: [entityIdReservation(actor.tenantId, body.label, entityId)],
    },
  );
  // From the state, not the appended events: a retried request (Idempotency-Key) appends none.
  const properties: Properties = state.status === 'active' ? state.properties : {};
  return { id: vertexId, label: body.label, entity_id: entityId, properties };
}
