import type { ContextModule, PlatformDeps } from '../../platform/context-module';
import { type CaptureService, createCaptureService } from './captures';
import { evaluationApi } from './openapi';
import { capturesProjector } from '../../../projections/evaluation/captures';
import { runsProjector } from '../../../projections/evaluation/runs';
import { createEvaluationApi } from './http';

export interface EvaluationContext extends ContextModule {
  /** The capture service behind a platform's routes (tests wait on its background retries). */
  captures(deps: PlatformDeps): CaptureService;
}

/**
 * The context owns one capture service per platform it serves (its background snapshot
 * retries): the routes, the start-up passes and stop all reach the same one.
 */
export function createEvaluationContext(): EvaluationContext {
  const services = new Map<PlatformDeps, CaptureService>();
  const captures = (deps: PlatformDeps) => {
    let service = services.get(deps);
    if (!service) {
      service = createCaptureService(deps);
      services.set(deps, service);
    }
    return service;
  };
  return {
    name: 'evaluation',
    projectors: [capturesProjector, runsProjector],
    publicRouter: (deps) => createEvaluationApi(deps, captures(deps)),
    openapi: evaluationApi,
    captures,
    async start(deps) {
      const service = captures(deps);
      await service.relinkMissing();
      await service.remirrorPending();
    },
    async stop() {
      for (const service of services.values()) service.stop();
      services.clear();
    },
  };
}

export const evaluationContext = createEvaluationContext();
