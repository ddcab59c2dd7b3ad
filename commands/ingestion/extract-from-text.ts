import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import { extractEntities } from './extract-entities';
import { extractionFacts } from './graph-facts';
import {
  entityExtractionAggregate,
  type EntityExtractionEvent,
  type EntityExtractionState,
  type ExtractedEdge,
  type ExtractedEntity,
} from '../../streams/ingestion/entity-extraction';
import { feedGraph, type FeedDeps } from './feed-graph';

export const ExtractBody = z.object({ text: z.string().min(1).max(200_000) }).strict();

export interface RecordExtraction {
  type: 'RecordExtraction';
  extractionId: string;
  textSha256: string;
  entities: ExtractedEntity[];
  edges: ExtractedEdge[];
}

/** The same text extracted again is recorded once; an extraction that found nothing records nothing. */
export function decideRecordExtraction(
  command: RecordExtraction,
  state: EntityExtractionState,
): EntityExtractionEvent[] {
  switch (command.type) {
    case 'RecordExtraction': {
      if (state.status !== 'none' || command.entities.length === 0) return [];
      const { extractionId, textSha256, entities, edges } = command;
      return [{ type: 'EntitiesExtracted', data: { extractionId, textSha256, entities, edges } }];
    }
    default:
      return assertNever(command.type);
  }
}

export const recordExtractionDecider: Decider<RecordExtraction, EntityExtractionState, EntityExtractionEvent> = {
  ...entityExtractionAggregate,
  decide: decideRecordExtraction,
};

/**
 * `POST /extract` (internal listener): the entities and edges of the text, recorded as
 * EntitiesExtracted (published to the broker by the bridge) and fed to the graph: wells and
 * permits are created, names of operators, leases and fields link to vertices already there.
 */
export async function extractFromText(
  deps: FeedDeps,
  context: CommandContext,
  text: string,
): Promise<{ entities: ExtractedEntity[]; edges: ExtractedEdge[] }> {
  const { entities, edges } = extractEntities(text);
  const textSha256 = createHash('sha256').update(text).digest('hex');
  const extractionId = derivedUuid('ingestion.extraction', context.tenantId, textSha256);
  await deps.handle(
    recordExtractionDecider,
    entityExtractionAggregate.stream(context.tenantId, extractionId),
    { type: 'RecordExtraction', extractionId, textSha256, entities, edges },
    { ...context, idempotencyKey: `extraction:${extractionId}` },
  );
  if (entities.length > 0)
    await feedGraph(deps, { tenantId: context.tenantId, userId: context.actorId }, extractionFacts(entities, edges), {
      source: 'extraction',
      description: `entities extracted from text ${textSha256.slice(0, 12)}`,
    });
  return { entities, edges };
}
