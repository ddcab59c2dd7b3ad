import type { ContextModule } from './context-module';

/** Every context the platform runs, in start order. One line per context. */
export const contexts: ContextModule[] = [];
