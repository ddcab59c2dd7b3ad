import type { Decider } from '../../src/platform/command-handling/decider';
import { NotFound } from '../../src/platform/domain-errors';
import { edgeIdsOf } from '../../queries/graph/entities';
import { namespaceOf, vertexStream } from '../../streams/graph/names';
import {
  importRecord,
  vertexAggregate,
  vertexAsKnown,
  type VertexEvent,
  type VertexFacts,
  type VertexState,
} from '../../streams/graph/vertex';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';
import { entityIdReservation } from './entity-id-reservation';
import { resolveVertex } from './resolve-vertex';

export interface DeleteEntity {
  type: 'DeleteEntity';
  vertexId: string;
  namespace: string;
  /** The edges touching the vertex when deleted (the projection removes every such edge). */
  edgeIds: string[];
  imported: VertexFacts | null;
}

export function decideDeleteEntity(command: DeleteEntity, stored: VertexState): VertexEvent[] {
  const state = vertexAsKnown(stored, command.imported);
  if (state.status !== 'active') throw new NotFound('vertex not found');
  const { vertexId, namespace } = command;
  return [
    ...importRecord(stored, command.imported, { vertexId, namespace }),
    {
      type: 'VertexDeleted',
      data: { vertexId, namespace, label: state.label, entityId: state.entityId, edgeIds: command.edgeIds },
    },
  ];
}

export const deleteEntityDecider: Decider<DeleteEntity, VertexState, VertexEvent> = {
  ...vertexAggregate,
  decide: decideDeleteEntity,
};

export async function deleteEntity(deps: GraphCommandDeps, actor: GraphActor, label: string, id: string) {
  const namespace = namespaceOf(actor.tenantId);
  const vertex = await resolveVertex(deps.knex, namespace, label, id);
  const edgeIds = await edgeIdsOf(deps.knex, namespace, vertex.id);
  const command: DeleteEntity = {
    type: 'DeleteEntity',
    vertexId: vertex.id,
    namespace,
    edgeIds,
    imported: { label: vertex.label, entityId: vertex.entity_id, properties: vertex.properties },
  };
  await deps.handle(deleteEntityDecider, vertexStream(actor.tenantId, vertex.id), command, commandContext(actor), {
    release: [entityIdReservation(actor.tenantId, vertex.label, vertex.entity_id)],
  });
  return {
    id: vertex.id,
    label: vertex.label,
    entity_id: vertex.entity_id,
    deleted: true,
    edges_deleted: edgeIds.length,
  };
}
