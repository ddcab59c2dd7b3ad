import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * One extraction (`ingestion.extraction-<tenant>-<id>`): the entities and edges found in a
 * text. The text itself is not kept (only its hash); the id derives from the tenant and the
 * text, so extracting the same text twice records it once.
 */
export const ExtractedEntity = z.object({ type: z.string(), name: z.string(), api_number: z.string().optional() });
export const ExtractedEdge = z.object({ from: z.string(), to: z.string(), type: z.string() });
export type ExtractedEntity = z.infer<typeof ExtractedEntity>;
export type ExtractedEdge = z.infer<typeof ExtractedEdge>;

export const EntityExtractionEventSchemas = {
  EntitiesExtracted: z.object({
    extractionId: z.string(),
    textSha256: z.string(),
    entities: z.array(ExtractedEntity),
    edges: z.array(ExtractedEdge),
  }),
};

export type EntityExtractionEvent = EventsOf<typeof EntityExtractionEventSchemas>;
export const readEntityExtractionEvent = eventReader('entity extraction', EntityExtractionEventSchemas);

export type EntityExtractionState = { status: 'none' } | { status: 'extracted'; entities: number; edges: number };

export function evolveEntityExtraction(
  _state: EntityExtractionState,
  event: EntityExtractionEvent,
): EntityExtractionState {
  return { status: 'extracted', entities: event.data.entities.length, edges: event.data.edges.length };
}

export const entityExtractionAggregate: Aggregate<EntityExtractionState, EntityExtractionEvent> = {
  stream: (tenantId, id) => `ingestion.extraction-${tenantId}-${id}`,
  eventTypes: Object.keys(EntityExtractionEventSchemas) as EntityExtractionEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveEntityExtraction,
  read: readEntityExtractionEvent,
};
