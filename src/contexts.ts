import type { ContextModule } from './context-module';
import { identityContext } from './api/identity';
import { settingsContext } from './api/settings';
import { conversationsContext } from './api/conversations';
import { graphContext } from './api/graph';
import { ingestionContext } from './api/ingestion';

/** Every context the platform runs, in start order. One line per context. */
export const contexts: ContextModule[] = [
  identityContext,
  settingsContext,
  conversationsContext,
  graphContext,
  ingestionContext,
];
