import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { sendCommands } from '../../src/platform/reactors/reaction';
import {
  checklistAggregate,
  type ChecklistState,
  evolveChecklist,
  readChecklistEvent,
} from '../../streams/checklists/checklist';
import { filingPackageCommands, filingPackageFacts } from '../graph/record-filing-package';
import { existing } from './guards';

/**
 * POST /checklists/{id}/retry-filing (administrators): files a `filing_failed` checklist again,
 * once the cause is mended, by the graph reaction's own commands under the administrator's
 * request; a failure again records the new reason. 409 in any other status.
 */
export async function retryFiling(deps: PlatformDeps, context: CommandContext, checklistId: string) {
  // Read as the decider's state, so no checklist is the guard's 404 rather than a history error.
  const events = (await deps.store.readStream(checklistAggregate.stream(context.tenantId, checklistId))).map(
    readChecklistEvent,
  );
  const state = existing(events.reduce(evolveChecklist, { status: 'none' } as ChecklistState));
  if (state.status !== 'filing_failed')
    throw new Conflict(`Cannot retry the filing: the checklist is ${state.status}`, { status: state.status });
  const facts = await filingPackageFacts(deps, context.tenantId, checklistId);
  const position = await sendCommands(deps, () => context, filingPackageCommands(facts, context.actorId));
  return { position };
}
