import { dailyUsageAggregate } from '../../../streams/agents/daily-usage';
import { skillAggregate } from '../../../streams/agents/skill';
import { turnAggregate } from '../../../streams/agents/turn';
import { type AuditCatalog } from '../../platform/audit/catalog';

/** Agents: skills, turns and the daily usage streams (budget reservations and settlements), folded and worded in actor/correlation timelines (no entity flag yet). */
export const agentsAuditCatalog: AuditCatalog = {
  aggregates: [
    { kind: 'skill', aggregate: skillAggregate },
    { kind: 'agent-turn', aggregate: turnAggregate },
    { kind: 'daily-usage', aggregate: dailyUsageAggregate },
  ],
};
