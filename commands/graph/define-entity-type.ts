import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import { findEntityType } from '../../queries/graph/graph-schema';
import { entityTypeStream } from '../../streams/graph/names';
import {
  type ConfigItemState,
  configItemAggregate,
  EntityTypeDefinition,
  itemAsKnown,
  type SchemaEvent,
} from '../../streams/graph/schema';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';

/** A new vertex label, usable at once by entity and edge writes (no code change). */
export const DefineEntityTypeBody = EntityTypeDefinition;

export interface DefineEntityType {
  type: 'DefineEntityType';
  definition: EntityTypeDefinition;
  known: EntityTypeDefinition | null;
  /** Another entity type already uses this label. */
  labelTaken: boolean;
}

type State = ConfigItemState<EntityTypeDefinition>;

export function decideDefineEntityType(command: DefineEntityType, stored: State): SchemaEvent[] {
  const state = itemAsKnown(stored, command.known);
  if (state.status === 'defined') throw new Conflict(`entity type '${command.definition.key}' exists already`);
  if (command.labelTaken) throw new Conflict(`label '${command.definition.label}' belongs to another entity type`);
  return [{ type: 'EntityTypeDefined', data: { definition: command.definition } }];
}

export const defineEntityTypeDecider: Decider<DefineEntityType, State, SchemaEvent> = {
  initialState: { status: 'none' },
  ...configItemAggregate,
  decide: decideDefineEntityType,
};

export async function defineEntityType(
  deps: GraphCommandDeps,
  actor: GraphActor,
  definition: EntityTypeDefinition,
): Promise<EntityTypeDefinition> {
  const [known, byLabel] = await Promise.all([
    findEntityType(deps.knex, definition.key),
    findEntityType(deps.knex, definition.label),
  ]);
  const command: DefineEntityType = {
    type: 'DefineEntityType',
    definition,
    known: known?.key === definition.key ? known : null,
    labelTaken: Boolean(byLabel && byLabel.key !== definition.key),
  };
  await deps.handle(defineEntityTypeDecider, entityTypeStream(definition.key), command, commandContext(actor));
  return definition;
}
