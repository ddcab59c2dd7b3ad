import type { Decider } from '../../src/platform/command-handling/decider';
import {
  OILGAS_ENTITY_TYPES,
  OILGAS_RELATIONSHIP_RULES,
  OILGAS_RELATIONSHIP_TYPES,
  OILGAS_VERTICAL,
  OILGAS_VERTICAL_VERSION,
} from '../../streams/graph/oilgas-vertical';
import { verticalStream } from '../../streams/graph/names';
import { readSchemaEvent, type SchemaEvent } from '../../streams/graph/schema';
import type { GraphCommandDeps } from './actor';

export type VerticalState = { status: 'absent' } | { status: 'installed' };

export interface InstallVertical {
  type: 'InstallVertical';
  data: Extract<SchemaEvent, { type: 'GraphVerticalInstalled' }>['data'];
}

/** Installing is idempotent: the second start finds the stream and decides nothing. */
export const installVerticalDecider: Decider<InstallVertical, VerticalState, SchemaEvent> = {
  initialState: { status: 'absent' },
  evolve: (state, event) => (event.type === 'GraphVerticalInstalled' ? { status: 'installed' } : state),
  read: readSchemaEvent,
  decide: (command, state) =>
    state.status === 'installed' ? [] : [{ type: 'GraphVerticalInstalled', data: command.data }],
};

export const SYSTEM_ACTOR = {
  tenantId: '00000000-0000-0000-0000-000000000000',
  actorId: '00000000-0000-0000-0000-000000000000',
};

export async function installOilgasVertical(deps: GraphCommandDeps): Promise<void> {
  const data = {
    vertical: OILGAS_VERTICAL,
    version: OILGAS_VERTICAL_VERSION,
    entityTypes: OILGAS_ENTITY_TYPES,
    relationshipTypes: OILGAS_RELATIONSHIP_TYPES,
    relationshipRules: OILGAS_RELATIONSHIP_RULES,
  };
  await deps.handle(
    installVerticalDecider,
    verticalStream(OILGAS_VERTICAL, OILGAS_VERTICAL_VERSION),
    { type: 'InstallVertical', data },
    SYSTEM_ACTOR,
  );
}
