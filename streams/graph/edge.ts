import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { edgeStream } from './names';
import type { Properties } from './properties';

/** One edge written through the API (`graph.edge-…`); deleting an endpoint removes it. */
export interface EdgeFacts {
  edgeId: string;
  namespace: string;
  edgeLabel: string;
  fromId: string;
  fromLabel: string;
  toId: string;
  toLabel: string;
  properties: Properties;
}

export type EdgeEvent = { type: 'EdgeCreated'; data: EdgeFacts };

export type EdgeState = { status: 'none' } | { status: 'created'; edge: EdgeFacts };

export const EDGE_EVENT_TYPES = ['EdgeCreated'] as const;

const EdgeCreated = z.object({
  edgeId: z.string(),
  namespace: z.string(),
  edgeLabel: z.string(),
  fromId: z.string(),
  fromLabel: z.string(),
  toId: z.string(),
  toLabel: z.string(),
  properties: z.record(z.string()),
});

export function readEdgeEvent(event: RecordedEvent): EdgeEvent {
  if (event.type !== 'EdgeCreated') throw new Error(`not an edge event: ${event.type}`);
  return { type: 'EdgeCreated', data: EdgeCreated.parse(event.data) };
}

export function evolveEdge(_state: EdgeState, event: EdgeEvent): EdgeState {
  return { status: 'created', edge: event.data };
}

export const edgeAggregate = {
  stream: edgeStream,
  eventTypes: EDGE_EVENT_TYPES,
  initialState: { status: 'none' } as EdgeState,
  evolve: evolveEdge,
  read: readEdgeEvent,
};
