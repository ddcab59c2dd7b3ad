import { type z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import type { ConnectorsDeps } from './connectors-deps';
import { checkedContent, EKEY, type ExposureContent, ExposureContentInput } from './exposure-content';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../streams/connectors/connector';
import { connectorIdOf, loadConnector, requireLive } from './connector-refs';

/** POST /connectors/{key}/exposures: a draft; its ekey is unique within the connector. */
export const DraftExposureInput = ExposureContentInput.extend({ ekey: EKEY }).strict();

export interface DraftExposure {
  type: 'DraftExposure';
  content: ExposureContent;
  authorId: string;
}

export function decideDraftExposure(command: DraftExposure, state: ConnectorState, now: Date): ConnectorEvent[] {
  const live = requireLive(state);
  if (live.exposures[command.content.ekey])
    throw new Conflict(`exposure ${command.content.ekey} already exists on this connector`);
  return [{ type: 'ExposureDrafted', data: { ...command.content, authorId: command.authorId, at: now.toISOString() } }];
}

const decider: Decider<DraftExposure, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideDraftExposure,
};

export async function draftExposure(
  deps: ConnectorsDeps,
  key: string,
  input: z.infer<typeof DraftExposureInput>,
  context: CommandContext,
) {
  const id = await connectorIdOf(deps, context.tenantId, key);
  const connector = await loadConnector(deps, context.tenantId, id);
  const { ekey, ...rest } = input;
  const content = await checkedContent(connector.connectorType, key, ekey, rest);
  await deps.handle(
    decider,
    connectorAggregate.stream(context.tenantId, id),
    { type: 'DraftExposure', content, authorId: context.actorId },
    context,
  );
  return id;
}
