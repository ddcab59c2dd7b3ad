import { z } from 'zod';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict, type FieldIssue, NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import { type EdgeView, findVertex } from '../../queries/graph/entities';
import { edgeSchemaFacts, type EdgeSchemaFacts, isVertexLabel } from '../../queries/graph/graph-schema';
import { edgeAggregate, type EdgeEvent, type EdgeState } from '../../streams/graph/edge';
import { edgeStream, namespaceOf } from '../../streams/graph/names';
import { type Properties, toStoredProperties } from '../../streams/graph/properties';
import { commandContext, type GraphActor, type GraphCommandDeps } from './actor';
import { boundedRecord } from '../../src/platform/http/bounded';

export const CreateEdgeBody = z.object({
  from_label: z.string().min(1).max(64),
  from_id: z.string().min(1).max(200),
  to_label: z.string().min(1).max(64),
  to_id: z.string().min(1).max(200),
  edge_label: z.string().min(1).max(64),
  properties: boundedRecord(z.unknown()).default({}),
});

export interface CreateEdge {
  type: 'CreateEdge';
  edgeId: string;
  namespace: string;
  edgeLabel: string;
  fromLabel: string;
  toLabel: string;
  properties: Properties;
  /** Facts read before deciding: configured labels, the label's endpoint rules, the endpoints found. */
  fromLabelKnown: boolean;
  toLabelKnown: boolean;
  schema: EdgeSchemaFacts;
  fromId: string | null;
  toId: string | null;
}

const issue = (field: string, msg: string, type: string): FieldIssue => ({ loc: ['body', field], msg, type });

/** 422 names every bad label field; only a well-formed request reaches the 404 for missing vertices. */
export function decideCreateEdge(command: CreateEdge, state: EdgeState): EdgeEvent[] {
  const { edgeLabel, fromLabel, toLabel, schema } = command;
  const issues: FieldIssue[] = [];
  if (!command.fromLabelKnown)
    issues.push(issue('from_label', `unknown vertex label '${fromLabel}'`, 'value_error.label'));
  if (!command.toLabelKnown) issues.push(issue('to_label', `unknown vertex label '${toLabel}'`, 'value_error.label'));
  if (!schema.edgeLabelKnown)
    issues.push(
      issue('edge_label', `unknown edge label '${edgeLabel}' (see GET /relationship-types)`, 'value_error.edge_label'),
    );
  else if (command.fromLabelKnown && command.toLabelKnown) {
    if (!schema.fromAllowed)
      issues.push(
        issue(
          'from_label',
          `${edgeLabel} edges start at ${schema.allowedFrom.join(', ') || 'no label'}, not ${fromLabel}`,
          'value_error.edge_endpoint',
        ),
      );
    if (!schema.toAllowed)
      issues.push(
        issue(
          'to_label',
          `${edgeLabel} edges end at ${schema.allowedTo.join(', ') || 'no label'}, not ${toLabel}`,
          'value_error.edge_endpoint',
        ),
      );
    if (schema.fromAllowed && schema.toAllowed && !schema.pairAllowed) {
      issues.push(
        issue(
          'to_label',
          `no ${edgeLabel} rule joins ${fromLabel} to ${toLabel} (see GET /relationship-rules)`,
          'value_error.edge_endpoint',
        ),
      );
    }
  }
  if (issues.length > 0) throw new ValidationFailed(issues);
  if (!command.fromId) throw new NotFound(`${fromLabel} (from_id) not found`);
  if (!command.toId) throw new NotFound(`${toLabel} (to_id) not found`);
  if (state.status !== 'none') throw new Conflict('the edge exists already');
  return [
    {
      type: 'EdgeCreated',
      data: {
        edgeId: command.edgeId,
        namespace: command.namespace,
        edgeLabel,
        fromId: command.fromId,
        fromLabel,
        toId: command.toId,
        toLabel,
        properties: command.properties,
      },
    },
  ];
}

export const createEdgeDecider: Decider<CreateEdge, EdgeState, EdgeEvent> = {
  ...edgeAggregate,
  decide: decideCreateEdge,
};

export async function createEdge(
  deps: GraphCommandDeps,
  actor: GraphActor,
  body: z.infer<typeof CreateEdgeBody>,
  edgeId: string,
): Promise<EdgeView> {
  const { knex } = deps;
  const namespace = namespaceOf(actor.tenantId);
  const [fromLabelKnown, toLabelKnown, schema, from, to] = await Promise.all([
    isVertexLabel(knex, body.from_label),
    isVertexLabel(knex, body.to_label),
    edgeSchemaFacts(knex, body.edge_label, body.from_label, body.to_label),
    findVertex(knex, namespace, body.from_label, body.from_id),
    findVertex(knex, namespace, body.to_label, body.to_id),
  ]);
  const command: CreateEdge = {
    type: 'CreateEdge',
    edgeId,
    namespace,
    edgeLabel: body.edge_label,
    fromLabel: body.from_label,
    toLabel: body.to_label,
    properties: toStoredProperties(body.properties).set,
    fromLabelKnown,
    toLabelKnown,
    schema,
    fromId: from?.id ?? null,
    toId: to?.id ?? null,
  };
  const { state } = await deps.handle(
    createEdgeDecider,
    edgeStream(actor.tenantId, edgeId),
    command,
    commandContext(actor),
  );
  // From the state, not the appended events: a replayed command (Idempotency-Key, reaction) appends none.
  if (state.status === 'none') throw new Error('edge creation appended nothing');
  const e = state.edge;
  return {
    id: e.edgeId,
    edge_label: e.edgeLabel,
    from_id: e.fromId,
    from_label: e.fromLabel,
    to_id: e.toId,
    to_label: e.toLabel,
    properties: e.properties,
  };
}
