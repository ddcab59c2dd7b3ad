import { type z } from 'zod';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict, type FieldIssue, ValidationFailed } from '../../src/platform/domain-errors';
import { findRelationshipType, listRelationshipRules, vertexLabels } from '../../queries/graph/graph-schema';
import { relationshipRuleStream } from '../../streams/graph/names';
import {
  ANY_LABEL,
  type ConfigItemState,
  configItemAggregate,
  RelationshipRuleDefinition,
  type SchemaEvent,
} from '../../streams/graph/schema';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';

/** `*` on a side admits any vertex label. */
export const AddRelationshipRuleBody = RelationshipRuleDefinition.omit({ id: true });

export interface AddRelationshipRule {
  type: 'AddRelationshipRule';
  rule: RelationshipRuleDefinition;
  edgeLabelKnown: boolean;
  fromLabelKnown: boolean;
  toLabelKnown: boolean;
  duplicateOf: string | null;
}

type State = ConfigItemState<RelationshipRuleDefinition>;

export function decideAddRelationshipRule(command: AddRelationshipRule, state: State): SchemaEvent[] {
  const { rule } = command;
  const issues: FieldIssue[] = [];
  if (!command.edgeLabelKnown)
    issues.push({
      loc: ['body', 'edge_label'],
      msg: `unknown edge label '${rule.edge_label}'`,
      type: 'value_error.edge_label',
    });
  if (!command.fromLabelKnown)
    issues.push({
      loc: ['body', 'from_label'],
      msg: `unknown vertex label '${rule.from_label}'`,
      type: 'value_error.label',
    });
  if (!command.toLabelKnown)
    issues.push({
      loc: ['body', 'to_label'],
      msg: `unknown vertex label '${rule.to_label}'`,
      type: 'value_error.label',
    });
  if (issues.length) throw new ValidationFailed(issues);
  if (command.duplicateOf) throw new Conflict(`the same rule exists already (${command.duplicateOf})`);
  if (state.status !== 'none') throw new Conflict('the rule exists already');
  return [{ type: 'RelationshipRuleAdded', data: { rule } }];
}

export const addRelationshipRuleDecider: Decider<AddRelationshipRule, State, SchemaEvent> = {
  initialState: { status: 'none' },
  ...configItemAggregate,
  decide: decideAddRelationshipRule,
};

export async function addRelationshipRule(
  deps: GraphCommandDeps,
  actor: GraphActor,
  body: z.infer<typeof AddRelationshipRuleBody>,
  id: string,
): Promise<RelationshipRuleDefinition> {
  const [type, labels, same] = await Promise.all([
    findRelationshipType(deps.knex, body.edge_label),
    vertexLabels(deps.knex),
    listRelationshipRules(deps.knex, { edge_label: body.edge_label }),
  ]);
  const knownLabel = (label: string) => label === ANY_LABEL || labels.includes(label);
  const rule = { id, ...body };
  const duplicate = same.find((r) => r.from_label === body.from_label && r.to_label === body.to_label);
  const command: AddRelationshipRule = {
    type: 'AddRelationshipRule',
    rule,
    edgeLabelKnown: Boolean(type),
    fromLabelKnown: knownLabel(body.from_label),
    toLabelKnown: knownLabel(body.to_label),
    duplicateOf: duplicate?.id ?? null,
  };
  await deps.handle(addRelationshipRuleDecider, relationshipRuleStream(id), command, commandContext(actor));
  return rule;
}
