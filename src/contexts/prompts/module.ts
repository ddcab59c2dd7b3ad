import { promptAuditLogProjector } from '../../../projections/prompts/prompt-audit-log';
import { promptCatalogProjector } from '../../../projections/prompts/prompt-catalog';
import type { ContextModule } from '../../platform/context-module';
import { connectRedis } from '../../platform/infra/cache';
import { promptResolveCache } from '../../../commands/prompts/resolve-cache';
import { promptsApi } from './openapi';
import { promptsAuditCatalog } from './audit';
import { createPromptsApi } from './http';

/**
 * The context module. When REDIS_URL is set, each instance keeps two connections for the
 * resolve cache's invalidations (a subscribed connection cannot publish).
 */
export function createPromptsContext(): ContextModule {
  const connected: Array<() => Promise<void>> = [];
  return {
    name: 'prompts',
    audit: promptsAuditCatalog,
    projectors: [promptCatalogProjector, promptAuditLogProjector],
    publicRouter: (deps) => createPromptsApi(deps, 'public'),
    internalRouter: (deps) => createPromptsApi(deps, 'internal'),
    openapi: promptsApi,
    async start(deps) {
      if (!deps.config.redisUrl) return;
      const cache = promptResolveCache(deps);
      const { redisUrl } = deps.config;
      await cache.connect(connectRedis(redisUrl, deps.logger), connectRedis(redisUrl, deps.logger));
      connected.push(() => cache.disconnect());
    },
    async stop() {
      for (const disconnect of connected.splice(0)) await disconnect();
    },
  };
}

export const promptsContext: ContextModule = createPromptsContext();
