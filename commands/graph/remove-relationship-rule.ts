import type { Decider } from '../../src/platform/command-handling/decider';
import { NotFound } from '../../src/platform/domain-errors';
import { findRelationshipRule } from '../../queries/graph/graph-schema';
import { relationshipRuleStream } from '../../streams/graph/names';
import {
  type ConfigItemState,
  configItemAggregate,
  itemAsKnown,
  type RelationshipRuleDefinition,
  type SchemaEvent,
} from '../../streams/graph/schema';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';

/** Existing edges stay; new edges of that shape are refused from now on. */
export interface RemoveRelationshipRule {
  type: 'RemoveRelationshipRule';
  id: string;
  known: RelationshipRuleDefinition | null;
}

type State = ConfigItemState<RelationshipRuleDefinition>;

export function decideRemoveRelationshipRule(command: RemoveRelationshipRule, stored: State): SchemaEvent[] {
  if (itemAsKnown(stored, command.known).status !== 'defined')
    throw new NotFound(`relationship rule '${command.id}' not found`);
  return [{ type: 'RelationshipRuleRemoved', data: { id: command.id } }];
}

export const removeRelationshipRuleDecider: Decider<RemoveRelationshipRule, State, SchemaEvent> = {
  initialState: { status: 'none' },
  ...configItemAggregate,
  decide: decideRemoveRelationshipRule,
};

export async function removeRelationshipRule(deps: GraphCommandDeps, actor: GraphActor, id: string): Promise<void> {
  const known = await findRelationshipRule(deps.knex, id);
  const rule = known
    ? { id: known.id, edge_label: known.edge_label, from_label: known.from_label, to_label: known.to_label }
    : null;
  await deps.handle(
    removeRelationshipRuleDecider,
    relationshipRuleStream(id),
    { type: 'RemoveRelationshipRule', id, known: rule },
    commandContext(actor),
  );
}
