import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import { findRelationshipType } from '../../queries/graph/graph-schema';
import { relationshipTypeStream } from '../../streams/graph/names';
import {
  type ConfigItemState,
  configItemAggregate,
  itemAsKnown,
  RelationshipTypeDefinition,
  type SchemaEvent,
} from '../../streams/graph/schema';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';

/** A new edge label; which labels it joins is said by relationship rules. */
export const DefineRelationshipTypeBody = RelationshipTypeDefinition;

export interface DefineRelationshipType {
  type: 'DefineRelationshipType';
  definition: RelationshipTypeDefinition;
  known: RelationshipTypeDefinition | null;
}

type State = ConfigItemState<RelationshipTypeDefinition>;

export function decideDefineRelationshipType(command: DefineRelationshipType, stored: State): SchemaEvent[] {
  if (itemAsKnown(stored, command.known).status === 'defined')
    throw new Conflict(`relationship type '${command.definition.key}' exists already`);
  return [{ type: 'RelationshipTypeDefined', data: { definition: command.definition } }];
}

export const defineRelationshipTypeDecider: Decider<DefineRelationshipType, State, SchemaEvent> = {
  initialState: { status: 'none' },
  ...configItemAggregate,
  decide: decideDefineRelationshipType,
};

export async function defineRelationshipType(
  deps: GraphCommandDeps,
  actor: GraphActor,
  definition: RelationshipTypeDefinition,
): Promise<RelationshipTypeDefinition> {
  const known = await findRelationshipType(deps.knex, definition.key);
  await deps.handle(
    defineRelationshipTypeDecider,
    relationshipTypeStream(definition.key),
    { type: 'DefineRelationshipType', definition, known },
    commandContext(actor),
  );
  return definition;
}
