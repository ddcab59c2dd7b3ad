import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { assertNever } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import type { ConnectorsDeps } from './connectors-deps';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../streams/connectors/connector';
import { connectorIdOf, exposureOf, refuseTransition, requireLive } from './connector-refs';

/**
 * The review transitions of an exposure (submit, approve, reject, retire, delete): each a
 * small pure branch over the exposure's status. Approval pins the hash of the content it
 * saw; whoever wrote that content cannot approve it.
 */
export const RejectExposureInput = z.object({ reason: z.string().trim().min(1).max(2000) }).strict();

export type ReviewExposure =
  | { type: 'SubmitExposure'; ekey: string; by: string }
  | { type: 'ApproveExposure'; ekey: string; by: string }
  | { type: 'RejectExposure'; ekey: string; by: string; reason: string }
  | { type: 'RetireExposure'; ekey: string; by: string }
  | { type: 'DeleteExposure'; ekey: string; by: string };

export function decideReviewExposure(command: ReviewExposure, state: ConnectorState, now: Date): ConnectorEvent[] {
  const live = requireLive(state);
  const exposure = exposureOf(live, command.ekey);
  const base = { ekey: command.ekey, by: command.by, at: now.toISOString() };
  switch (command.type) {
    case 'SubmitExposure':
      if (exposure.status !== 'draft') refuseTransition('submit', exposure.status);
      return [{ type: 'ExposureSubmitted', data: base }];
    case 'ApproveExposure':
      if (exposure.status !== 'pending_review') refuseTransition('approve', exposure.status);
      if (exposure.authors.includes(command.by))
        throw new Conflict('the approver must differ from the author of the exposure');
      return [{ type: 'ExposureApproved', data: { ...base, approvedSqlHash: exposure.sqlHash } }];
    case 'RejectExposure':
      if (exposure.status !== 'pending_review') refuseTransition('reject', exposure.status);
      return [{ type: 'ExposureRejected', data: { ...base, reason: command.reason } }];
    case 'RetireExposure':
      if (exposure.status !== 'approved' && exposure.status !== 'pending_review')
        refuseTransition('retire', exposure.status);
      return [{ type: 'ExposureRetired', data: base }];
    case 'DeleteExposure':
      if (exposure.status === 'approved') throw new Conflict('an approved exposure cannot be deleted; retire it first');
      return [{ type: 'ExposureDeleted', data: base }];
    default:
      return assertNever(command);
  }
}

const decider: Decider<ReviewExposure, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideReviewExposure,
};

export async function reviewExposure(
  deps: ConnectorsDeps,
  key: string,
  command: ReviewExposure,
  context: CommandContext,
) {
  const id = await connectorIdOf(deps, context.tenantId, key);
  await deps.handle(decider, connectorAggregate.stream(context.tenantId, id), command, context);
}
