import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { EDGES } from '../../projections/graph/property-graph';
import { findRelationshipType } from '../../queries/graph/graph-schema';
import { relationshipTypeStream } from '../../streams/graph/names';
import {
  type ConfigItemState,
  configItemAggregate,
  itemAsKnown,
  type RelationshipTypeDefinition,
  type SchemaEvent,
} from '../../streams/graph/schema';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';

export interface RemoveRelationshipType {
  type: 'RemoveRelationshipType';
  key: string;
  known: RelationshipTypeDefinition | null;
  edgesInUse: number;
}

type State = ConfigItemState<RelationshipTypeDefinition>;

/** Its rules go with it (the projection drops them). */
export function decideRemoveRelationshipType(command: RemoveRelationshipType, stored: State): SchemaEvent[] {
  if (itemAsKnown(stored, command.known).status !== 'defined')
    throw new NotFound(`relationship type '${command.key}' not found`);
  if (command.edgesInUse > 0) throw new Conflict(`${command.edgesInUse} edges still carry the label ${command.key}`);
  return [{ type: 'RelationshipTypeRemoved', data: { key: command.key } }];
}

export const removeRelationshipTypeDecider: Decider<RemoveRelationshipType, State, SchemaEvent> = {
  initialState: { status: 'none' },
  ...configItemAggregate,
  decide: decideRemoveRelationshipType,
};

export async function removeRelationshipType(deps: GraphCommandDeps, actor: GraphActor, key: string): Promise<void> {
  const known = await findRelationshipType(deps.knex, key);
  const inUse = known
    ? await deps.knex(EDGES).where({ label: key }).count<{ count: string }[]>('* as count').first()
    : undefined;
  await deps.handle(
    removeRelationshipTypeDecider,
    relationshipTypeStream(key),
    { type: 'RemoveRelationshipType', key, known, edgesInUse: Number(inUse?.count ?? 0) },
    commandContext(actor),
  );
}
