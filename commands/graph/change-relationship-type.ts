import type { Decider } from '../../src/platform/command-handling/decider';
import { NotFound } from '../../src/platform/domain-errors';
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

export const ChangeRelationshipTypeBody = RelationshipTypeDefinition.omit({ key: true }).partial().strict();
type Changes = ReturnType<typeof ChangeRelationshipTypeBody.parse>;

export interface ChangeRelationshipType {
  type: 'ChangeRelationshipType';
  key: string;
  changes: Changes;
  known: RelationshipTypeDefinition | null;
}

type State = ConfigItemState<RelationshipTypeDefinition>;

export function decideChangeRelationshipType(command: ChangeRelationshipType, stored: State): SchemaEvent[] {
  const state = itemAsKnown(stored, command.known);
  if (state.status !== 'defined') throw new NotFound(`relationship type '${command.key}' not found`);
  const definition = { ...state.definition, ...command.changes };
  if (JSON.stringify(definition) === JSON.stringify(state.definition)) return [];
  return [{ type: 'RelationshipTypeChanged', data: { definition } }];
}

export const changeRelationshipTypeDecider: Decider<ChangeRelationshipType, State, SchemaEvent> = {
  initialState: { status: 'none' },
  ...configItemAggregate,
  decide: decideChangeRelationshipType,
};

export async function changeRelationshipType(
  deps: GraphCommandDeps,
  actor: GraphActor,
  key: string,
  changes: Changes,
): Promise<RelationshipTypeDefinition> {
  const known = await findRelationshipType(deps.knex, key);
  const { state } = await deps.handle(
    changeRelationshipTypeDecider,
    relationshipTypeStream(key),
    { type: 'ChangeRelationshipType', key, changes, known },
    commandContext(actor),
  );
  return state.status === 'defined' ? state.definition : { ...known!, ...changes };
}
