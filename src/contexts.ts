import type { ContextModule } from './context-module';
import { identityContext } from './api/identity';
import { settingsContext } from './api/settings';
import { conversationsContext } from './api/conversations';
import { graphContext } from './api/graph';
import { agentsContext } from './api/agents';
import { promptsContext } from './api/prompts';
import { connectorsContext } from './api/connectors';
import { monitoringContext } from './api/monitoring';
import { approvalsContext } from './api/approvals';
import { checklistsContext } from './api/checklists';
import { complianceContext } from './api/compliance';
import { auditContext } from './api/audit';
import { ingestionContext } from './api/ingestion';

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
];
