import type { ContextModule } from './platform/context-module';
import { identityContext } from './contexts/identity/module';
import { settingsContext } from './contexts/settings/module';
import { conversationsContext } from './contexts/conversations/module';
import { graphContext } from './contexts/graph/module';
import { agentsContext } from './contexts/agents/module';
import { promptsContext } from './contexts/prompts/module';
import { connectorsContext } from './contexts/connectors/module';
import { monitoringContext } from './contexts/monitoring/module';
import { approvalsContext } from './contexts/approvals/module';
import { checklistsContext } from './contexts/checklists/module';
import { complianceContext } from './contexts/compliance/module';
import { auditContext } from './contexts/audit/module';
import { ingestionContext } from './contexts/ingestion/module';
import { evaluationContext } from './contexts/evaluation/module';
import { filingsContext } from './contexts/filings/module';
import { systemContext } from './contexts/system/module';

/** Every context the platform runs, in start order. One line per context. */
export const contexts: ContextModule[] = [
  identityContext,
  settingsContext,
  conversationsContext,
  graphContext,
  agentsContext,
  promptsContext,
  connectorsContext,
  monitoringContext,
  approvalsContext,
  checklistsContext,
  complianceContext,
  auditContext,
  ingestionContext,
  evaluationContext,
  filingsContext,
  systemContext,
];
