import { Router } from 'express';
import type { ContextModule, PlatformDeps } from '../../platform/context-module';
import { createExtractionPool, type ExtractionPool } from '../../platform/infra/extraction';
import { conversationsProjector } from '../../../projections/conversations/conversations-read-model';
import { routeDecisionReactor } from '../../../commands/conversations/route-decision';
import { conversationsApi } from './openapi';
import { conversationsAuditCatalog } from './audit';
import { type Listener, type Extract, conversationRoutes, projectRoutes } from './http';

/**
 * The context owns its extraction pool: started with the first upload (platforms that never
 * receive one spawn no threads), shared by both listeners, closed when the platform stops.
 */
export function createConversationsContext(): ContextModule {
  let pool: ExtractionPool | null = null;
  const routes =
    (listener: Listener) =>
    (deps: PlatformDeps): Router => {
      const extract: Extract = (file) =>
        (pool ??= createExtractionPool(deps.config.extraction)).extract(file.bytes, {
          declared: { filename: file.filename, declaredType: file.declaredType },
        });
      const router = Router();
      router.use(conversationRoutes(deps, listener, extract), projectRoutes(deps, listener, extract));
      return router;
    };
  return {
    name: 'conversations',
    audit: conversationsAuditCatalog,
    projectors: [conversationsProjector],
    reactors: [routeDecisionReactor],
    publicRouter: routes('public'),
    internalRouter: routes('internal'),
    openapi: conversationsApi,
    async stop() {
      const closing = pool;
      pool = null;
      await closing?.close();
    },
  };
}

export const conversationsContext: ContextModule = createConversationsContext();
