import { z } from 'zod';
import type { Decider } from '../../src/platform/command-handling/decider';
import { NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import type { VertexView } from '../../queries/graph/entities';
import { namespaceOf, vertexStream } from '../../streams/graph/names';
import { applyChanges, type Properties, toStoredProperties } from '../../streams/graph/properties';
import {
  importRecord,
  vertexAggregate,
  vertexAsKnown,
  type VertexEvent,
  type VertexFacts,
  type VertexState,
} from '../../streams/graph/vertex';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';
import { resolveVertex } from './resolve-vertex';
import { boundedRecord } from '../../src/platform/http/bounded';

/** Sets the given properties and keeps the others; `null` removes one. */
export const UpdateEntityBody = z.object({ properties: boundedRecord(z.unknown()) });

export interface UpdateEntity {
  type: 'UpdateEntity';
  vertexId: string;
  namespace: string;
  set: Properties;
  removed: string[];
  imported: VertexFacts | null;
}

export function decideUpdateEntity(command: UpdateEntity, stored: VertexState): VertexEvent[] {
  const state = vertexAsKnown(stored, command.imported);
  if (state.status !== 'active') throw new NotFound('vertex not found');
  const changesId =
    ('entity_id' in command.set && command.set.entity_id !== state.entityId) || command.removed.includes('entity_id');
  if (changesId)
    throw new ValidationFailed([
      { loc: ['body', 'properties', 'entity_id'], msg: 'entity_id cannot be changed', type: 'value_error.immutable' },
    ]);
  const set = Object.fromEntries(Object.entries(command.set).filter(([k, v]) => state.properties[k] !== v));
  const removed = command.removed.filter((k) => k in state.properties);
  if (Object.keys(set).length === 0 && removed.length === 0) return [];
  const { vertexId, namespace } = command;
  return [
    ...importRecord(stored, command.imported, { vertexId, namespace }),
    { type: 'VertexPropertiesUpdated', data: { vertexId, namespace, set, removed } },
  ];
}

export const updateEntityDecider: Decider<UpdateEntity, VertexState, VertexEvent> = {
  ...vertexAggregate,
  decide: decideUpdateEntity,
};

export async function updateEntity(
  deps: GraphCommandDeps,
  actor: GraphActor,
  label: string,
  id: string,
  body: z.infer<typeof UpdateEntityBody>,
): Promise<VertexView> {
  const namespace = namespaceOf(actor.tenantId);
  const vertex = await resolveVertex(deps.knex, namespace, label, id);
  const { set, removed } = toStoredProperties(body.properties);
  const command: UpdateEntity = {
    type: 'UpdateEntity',
    vertexId: vertex.id,
    namespace,
    set,
    removed,
    imported: { label: vertex.label, entityId: vertex.entity_id, properties: vertex.properties },
  };
  const { state } = await deps.handle(
    updateEntityDecider,
    vertexStream(actor.tenantId, vertex.id),
    command,
    commandContext(actor),
  );
  const properties = state.status === 'active' ? state.properties : applyChanges(vertex.properties, set, removed);
  return { ...vertex, properties };
}
