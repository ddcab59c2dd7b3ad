import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { VERTICES } from '../../projections/graph/property-graph';
import { findEntityType } from '../../queries/graph/graph-schema';
import { entityTypeStream } from '../../streams/graph/names';
import {
  type ConfigItemState,
  configItemAggregate,
  type EntityTypeDefinition,
  itemAsKnown,
  type SchemaEvent,
} from '../../streams/graph/schema';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';

export interface RemoveEntityType {
  type: 'RemoveEntityType';
  key: string;
  known: EntityTypeDefinition | null;
  /** Vertices of this label in any tenant's graph: removing the type would strand them. */
  verticesInUse: number;
}

type State = ConfigItemState<EntityTypeDefinition>;

export function decideRemoveEntityType(command: RemoveEntityType, stored: State): SchemaEvent[] {
  const state = itemAsKnown(stored, command.known);
  if (state.status !== 'defined') throw new NotFound(`entity type '${command.key}' not found`);
  if (command.verticesInUse > 0)
    throw new Conflict(`${command.verticesInUse} vertices still carry the label ${state.definition.label}`);
  return [{ type: 'EntityTypeRemoved', data: { key: command.key, label: state.definition.label } }];
}

export const removeEntityTypeDecider: Decider<RemoveEntityType, State, SchemaEvent> = {
  initialState: { status: 'none' },
  ...configItemAggregate,
  decide: decideRemoveEntityType,
};

export async function removeEntityType(deps: GraphCommandDeps, actor: GraphActor, key: string): Promise<void> {
  const known = await findEntityType(deps.knex, key);
  const inUse = known
    ? await deps.knex(VERTICES).where({ label: known.label }).count<{ count: string }[]>('* as count').first()
    : undefined;
  const command: RemoveEntityType = {
    type: 'RemoveEntityType',
    key,
    known: known?.key === key ? known : null,
    verticesInUse: Number(inUse?.count ?? 0),
  };
  await deps.handle(removeEntityTypeDecider, entityTypeStream(key), command, commandContext(actor));
}
