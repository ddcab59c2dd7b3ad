import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import type { ConnectorsDeps } from './connectors-deps';
import type { DiscoveredTable } from './engines/engine';
import { engineRun } from './engine-run';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../streams/connectors/connector';
import { connectorIdOf, loadConnector, requireLive } from './connector-refs';

/** Tables, columns and types the verified credential can see (GET .../schema reads them). */
export interface RecordSchema {
  type: 'RecordSchema';
  tables: DiscoveredTable[];
  truncated: boolean;
}

export function decideRecordSchema(command: RecordSchema, state: ConnectorState, now: Date): ConnectorEvent[] {
  const live = requireLive(state);
  if (live.status !== 'active') throw new Conflict(`connector is ${live.status}; discovery needs a passing probe`);
  return [
    { type: 'SchemaDiscovered', data: { at: now.toISOString(), tables: command.tables, truncated: command.truncated } },
  ];
}

const decider: Decider<RecordSchema, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideRecordSchema,
};

export async function discoverSchema(deps: ConnectorsDeps, id: string, context: CommandContext) {
  const current = await loadConnector(deps, context.tenantId, id);
  if (current.status !== 'active')
    throw new Conflict(`connector is ${current.status}; discovery needs a passing probe`);
  const run = await engineRun(deps, current, context);
  const { tables, truncated } = await deps.engines[current.connectorType].discover(run, deps.limits.discoveryColumns);
  await deps.handle(
    decider,
    connectorAggregate.stream(context.tenantId, id),
    { type: 'RecordSchema', tables, truncated },
    context,
  );
  return { tables: tables.length, truncated };
}

export async function discoverConnectorSchema(deps: ConnectorsDeps, key: string, context: CommandContext) {
  return discoverSchema(deps, await connectorIdOf(deps, context.tenantId, key), context);
}
