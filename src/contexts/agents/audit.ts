import { skillAggregate } from '../../../streams/agents/skill';
import { turnAggregate } from '../../../streams/agents/turn';
import { AuditCatalog } from '../../platform/audit/catalog';

/** Agents: skills and turns, folded and worded in actor/correlation timelines (no entity flag yet). */
export const agentsAuditCatalog: AuditCatalog = {
  aggregates: [
    { kind: 'skill', aggregate: skillAggregate },
    { kind: 'agent-turn', aggregate: turnAggregate },
  ],
};
