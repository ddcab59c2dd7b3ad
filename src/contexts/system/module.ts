import type { ContextModule } from '../../platform/context-module';
import { createSystemApi } from './http';
import { systemApi } from './openapi';

/** The platform's own state for its operators: the System page's routes (docs/operations.md). */
export const systemContext: ContextModule = {
  name: 'system',
  openapi: systemApi,
  publicRouter: createSystemApi,
};
