import { settingsAuditLogProjector } from '../../../projections/settings/audit-log';
import { tenantSettingsProjector } from '../../../projections/settings/tenant-settings';
import { userBudgetOverridesProjector } from '../../../projections/settings/user-budget-overrides';
import type { ContextModule } from '../../platform/context-module';
import { settingsApi } from './openapi';
import { settingsAuditCatalog } from './audit';
import { createSettingsApi } from './http';

export const settingsContext: ContextModule = {
  name: 'settings',
  audit: settingsAuditCatalog,
  projectors: [tenantSettingsProjector, userBudgetOverridesProjector, settingsAuditLogProjector],
  publicRouter: createSettingsApi,
  openapi: settingsApi,
};
