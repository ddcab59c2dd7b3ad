import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import type { ConnectorsDeps } from './connectors-deps';
import { engineRun } from './engine-run';
import {
  connectorAggregate,
  type ConnectorEvent,
  type ConnectorState,
  type ProbeResult,
} from '../../streams/connectors/connector';
import { discoverSchema } from './discover-schema';
import { connectorIdOf, loadConnector, requireLive } from './connector-refs';

/**
 * The probe proves, it does not trust: it connects with the stored credential and asks the
 * server what the role can do. Only a passing probe sets `read_only_verified_at`; a result for
 * a credential that has since been replaced (or a connector disabled meanwhile) is dropped.
 */
export interface RecordProbe {
  type: 'RecordProbe';
  credentialRevision: number;
  result: ProbeResult;
}

export function decideRecordProbe(command: RecordProbe, state: ConnectorState): ConnectorEvent[] {
  const live = requireLive(state);
  if (live.status === 'disabled' || live.credentialRevision !== command.credentialRevision) return [];
  const data = { credentialRevision: command.credentialRevision, result: command.result };
  return [command.result.ok ? { type: 'ProbeSucceeded', data } : { type: 'ProbeFailed', data }];
}

const decider: Decider<RecordProbe, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideRecordProbe,
};

/** Never echo a credential inside a reason, whatever the driver put in its message. */
function scrub(message: string, credential: Record<string, string> | null): string {
  let out = message;
  for (const value of Object.values(credential ?? {}))
    if (value && value.length >= 4) out = out.split(value).join('***');
  return out.slice(0, 500);
}

export async function probeConnectorById(
  deps: ConnectorsDeps,
  id: string,
  context: CommandContext,
): Promise<ProbeResult> {
  const current = await loadConnector(deps, context.tenantId, id);
  if (current.status === 'disabled') throw new Conflict('connector is disabled; enable it (which probes)');
  if (!current.secretName) throw new Conflict('connector has no credential; set one (which probes)');
  const started = Date.now();
  let result: ProbeResult;
  let credential: Record<string, string> | null = null;
  try {
    const run = await engineRun(deps, current, context);
    credential = run.credential;
    const outcome = await deps.engines[current.connectorType].probe(run);
    result = {
      ok: outcome.ok,
      at: deps.clock().toISOString(),
      reasons: outcome.reasons,
      server_version: outcome.serverVersion,
      elapsed_ms: Date.now() - started,
    };
  } catch (error) {
    const detail =
      (error as { body?: { detail?: { reason?: string } } }).body?.detail?.reason ?? (error as Error).message;
    result = {
      ok: false,
      at: deps.clock().toISOString(),
      reasons: [scrub(detail, credential)],
      server_version: null,
      elapsed_ms: Date.now() - started,
    };
  }
  const probeContext = { ...context, idempotencyKey: undefined };
  const { events } = await deps.handle(
    decider,
    connectorAggregate.stream(context.tenantId, id),
    { type: 'RecordProbe', credentialRevision: current.credentialRevision, result },
    probeContext,
  );
  if (result.ok && events.length > 0)
    await discoverSchema(deps, id, probeContext).catch((err) =>
      deps.logger.warn(
        { err: { message: scrub(String(err?.message), credential) }, connectorId: id },
        'schema discovery after probe failed',
      ),
    );
  return result;
}

export async function probeConnector(deps: ConnectorsDeps, key: string, context: CommandContext): Promise<ProbeResult> {
  return probeConnectorById(deps, await connectorIdOf(deps, context.tenantId, key), context);
}
