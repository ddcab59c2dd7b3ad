import type { Decider } from '../../src/platform/command-handling/decider';
import { NotFound, ValidationFailed } from '../../src/platform/domain-errors';
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

/** Any field but the key; the label too is fixed once vertices may carry it. */
export const ChangeEntityTypeBody = EntityTypeDefinition.omit({ key: true }).partial().strict();
type Changes = ReturnType<typeof ChangeEntityTypeBody.parse>;

export interface ChangeEntityType {
  type: 'ChangeEntityType';
  key: string;
  changes: Changes;
  known: EntityTypeDefinition | null;
}

type State = ConfigItemState<EntityTypeDefinition>;

export function decideChangeEntityType(command: ChangeEntityType, stored: State): SchemaEvent[] {
  const state = itemAsKnown(stored, command.known);
  if (state.status !== 'defined') throw new NotFound(`entity type '${command.key}' not found`);
  if (command.changes.label !== undefined && command.changes.label !== state.definition.label) {
    throw new ValidationFailed([
      {
        loc: ['body', 'label'],
        msg: 'the label of an entity type cannot change (define a new type instead)',
        type: 'value_error.immutable',
      },
    ]);
  }
  const definition = { ...state.definition, ...command.changes };
  if (JSON.stringify(definition) === JSON.stringify(state.definition)) return [];
  return [{ type: 'EntityTypeChanged', data: { definition } }];
}

export const changeEntityTypeDecider: Decider<ChangeEntityType, State, SchemaEvent> = {
  initialState: { status: 'none' },
  ...configItemAggregate,
  decide: decideChangeEntityType,
};

export async function changeEntityType(
  deps: GraphCommandDeps,
  actor: GraphActor,
  key: string,
  changes: Changes,
): Promise<EntityTypeDefinition> {
  const known = await findEntityType(deps.knex, key);
  const command: ChangeEntityType = {
    type: 'ChangeEntityType',
    key,
    changes,
    known: known?.key === key ? known : null,
  };
  const { state } = await deps.handle(changeEntityTypeDecider, entityTypeStream(key), command, commandContext(actor));
  return state.status === 'defined' ? state.definition : { ...known!, ...changes };
}
