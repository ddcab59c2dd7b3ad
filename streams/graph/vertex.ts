import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { vertexStream } from './names';
import { applyChanges, type Properties } from './properties';

/** One vertex of a tenant's property graph, written through the API (`graph.vertex-…`). */
export type VertexEvent =
  | {
      type: 'VertexCreated';
      data: { vertexId: string; namespace: string; label: string; entityId: string; properties: Properties };
    }
  /**
   * A vertex a bulk import (seed, ingestion) loaded, as the import left it: the first event on
   * its own stream, appended with its first API write, so its history starts from its import.
   */
  | {
      type: 'VertexImported';
      data: { vertexId: string; namespace: string; label: string; entityId: string; properties: Properties };
    }
  | {
      type: 'VertexPropertiesUpdated';
      data: { vertexId: string; namespace: string; set: Properties; removed: string[] };
    }
  | {
      type: 'WellProductionReported';
      data: { vertexId: string; namespace: string; reportingMonth: string; set: Properties };
    }
  /** The vertex goes and every edge touching it goes with it (`edgeIds` as known when deleted). */
  | {
      type: 'VertexDeleted';
      data: { vertexId: string; namespace: string; label: string; entityId: string; edgeIds: string[] };
    };

export const VERTEX_EVENT_TYPES = [
  'VertexCreated',
  'VertexImported',
  'VertexPropertiesUpdated',
  'WellProductionReported',
  'VertexDeleted',
] as const;

export interface VertexFacts {
  label: string;
  entityId: string;
  properties: Properties;
}

export type VertexState =
  { status: 'none' } | ({ status: 'active' } & VertexFacts) | { status: 'deleted'; label: string; entityId: string };

const props = z.record(z.string());
const schemas = {
  VertexCreated: z.object({
    vertexId: z.string(),
    namespace: z.string(),
    label: z.string(),
    entityId: z.string(),
    properties: props,
  }),
  VertexImported: z.object({
    vertexId: z.string(),
    namespace: z.string(),
    label: z.string(),
    entityId: z.string(),
    properties: props,
  }),
  VertexPropertiesUpdated: z.object({
    vertexId: z.string(),
    namespace: z.string(),
    set: props,
    removed: z.array(z.string()),
  }),
  WellProductionReported: z.object({
    vertexId: z.string(),
    namespace: z.string(),
    reportingMonth: z.string(),
    set: props,
  }),
  VertexDeleted: z.object({
    vertexId: z.string(),
    namespace: z.string(),
    label: z.string(),
    entityId: z.string(),
    edgeIds: z.array(z.string()),
  }),
};

export function readVertexEvent(event: RecordedEvent): VertexEvent {
  const schema = schemas[event.type as keyof typeof schemas];
  if (!schema) throw new Error(`not a vertex event: ${event.type}`);
  return { type: event.type, data: schema.parse(event.data) } as VertexEvent;
}

export function evolveVertex(state: VertexState, event: VertexEvent): VertexState {
  switch (event.type) {
    case 'VertexCreated':
    case 'VertexImported':
      return {
        status: 'active',
        label: event.data.label,
        entityId: event.data.entityId,
        properties: event.data.properties,
      };
    case 'VertexPropertiesUpdated':
      return state.status === 'active'
        ? { ...state, properties: applyChanges(state.properties, event.data.set, event.data.removed) }
        : state;
    case 'WellProductionReported':
      return state.status === 'active'
        ? { ...state, properties: applyChanges(state.properties, event.data.set, []) }
        : state;
    case 'VertexDeleted':
      return { status: 'deleted', label: event.data.label, entityId: event.data.entityId };
  }
}

/**
 * A vertex loaded by a bulk import has no stream of its own until its first API write;
 * the command then carries the read model's view of it (`imported`) as the starting state.
 */
export function vertexAsKnown(state: VertexState, imported: VertexFacts | null | undefined): VertexState {
  if (state.status === 'none' && imported) return { status: 'active', ...imported };
  return state;
}

/**
 * What a write on an imported vertex appends before its own events: `VertexImported` with the
 * facts the import left, once (the stream has none yet), so the audit timeline shows the
 * import and every change after it with before and after values (docs/audit.md).
 */
export function importRecord(
  state: VertexState,
  imported: VertexFacts | null | undefined,
  ids: { vertexId: string; namespace: string },
): VertexEvent[] {
  if (state.status !== 'none' || !imported) return [];
  return [
    {
      type: 'VertexImported',
      data: { ...ids, label: imported.label, entityId: imported.entityId, properties: imported.properties },
    },
  ];
}

export const vertexAggregate = {
  stream: vertexStream,
  eventTypes: VERTEX_EVENT_TYPES,
  initialState: { status: 'none' } as VertexState,
  evolve: evolveVertex,
  read: readVertexEvent,
};
