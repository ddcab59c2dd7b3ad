import { type z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { ConnectorsDeps } from './connectors-deps';
import { checkedContent, type ExposureContent, ExposureContentInput } from './exposure-content';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../streams/connectors/connector';
import { connectorIdOf, exposureOf, loadConnector, requireLive } from './connector-refs';
import { exposureRow } from '../../queries/connectors/exposures';

/** PATCH /connectors/{key}/exposures/{ekey}: any edit returns the exposure to draft and re-hashes it. */
export const EditExposureInput = ExposureContentInput.partial().strict();

export interface EditExposure {
  type: 'EditExposure';
  content: ExposureContent;
  editorId: string;
}

export function decideEditExposure(command: EditExposure, state: ConnectorState, now: Date): ConnectorEvent[] {
  const live = requireLive(state);
  exposureOf(live, command.content.ekey);
  return [{ type: 'ExposureEdited', data: { ...command.content, editorId: command.editorId, at: now.toISOString() } }];
}

const decider: Decider<EditExposure, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideEditExposure,
};

export async function editExposure(
  deps: ConnectorsDeps,
  key: string,
  ekey: string,
  input: z.infer<typeof EditExposureInput>,
  context: CommandContext,
) {
  const id = await connectorIdOf(deps, context.tenantId, key);
  const connector = await loadConnector(deps, context.tenantId, id);
  exposureOf(connector, ekey);
  // The untouched fields come from the read model: the decision state keeps only hashes.
  const current = (await exposureRow(deps.knex, context.tenantId, key, ekey))!;
  const merged = ExposureContentInput.parse({
    display_name: input.display_name ?? current.display_name,
    description: input.description ?? current.description,
    sql: input.sql ?? current.sql,
    parameters: input.parameters ?? current.parameters,
    max_rows: input.max_rows !== undefined ? input.max_rows : current.max_rows,
  });
  const content = await checkedContent(connector.connectorType, key, ekey, merged);
  await deps.handle(
    decider,
    connectorAggregate.stream(context.tenantId, id),
    { type: 'EditExposure', content, editorId: context.actorId },
    context,
  );
}
