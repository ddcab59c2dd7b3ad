import type { Knex } from 'knex';
import type { RecordedEvent } from '../eventstore/types';

/**
 * What a context tells the audit review (`ops audit replay|state`, GET /admin/audit/*):
 * its aggregates (stream-name helper, event catalogue, fold), how a reviewer's key — an
 * e-mail, an API number, a connector key — resolves to the entities behind it, and how its
 * events read in words. Stream names never leave this registry: a reviewer names entities.
 *
 * A context fills `audit` on its ContextModule; `buildAuditRegistry(contexts)` merges them.
 */
export interface AuditCatalog {
  aggregates: AuditAggregate[];
  /** The reviewer flags this context answers (`--user`, `--well`, `--entity`…). */
  finders?: AuditFinder[];
}

/** The part of an `Aggregate` (src/platform/command-handling/aggregate.ts) the audit folds with. */
export interface FoldableAggregate {
  stream(tenantId: string, id: string): string;
  eventTypes: readonly string[];
  initialState: unknown;

  evolve(state: any, event: any): any;

  read(event: RecordedEvent): any;
}

export interface AuditAggregate {
  /** The entity kind as timelines and sheet names show it: `user`, `well`, `conversation`… */
  kind: string;
  aggregate: FoldableAggregate;
  /**
   * The event in words, e.g. "roles changed from [operator] to [operator, reviewer]"; absent
   * or undefined: the type in words ("display name changed") and the changed fields carry it.
   */
  describe?(event: { type: string; data: unknown }, before: unknown, after: unknown): string | undefined;
  /** State fields left out of the before → after list (bookkeeping such as token hashes). */
  hiddenFields?: string[];
}

/** One entity a reviewer's key named. */
export interface AuditTarget {
  /** The aggregate kind (as in `AuditAggregate.kind`). */
  kind: string;
  id: string;
  /** A readable name for the cover sheet and tab: "user ann@example.com", "Well 42-123-45678". */
  title: string;
}

export interface AuditFinder {
  /** The flag without dashes: `user` answers `--user <value>`. */
  flag: string;
  /** The expected value, for help texts and "nothing found" messages. */
  value: string;
  /** Entities the value names in this tenant; [] when nothing matches (never throws for unknown). */
  find(lookup: AuditLookup, tenantId: string, value: string): Promise<AuditTarget[]>;
}

/** What finders may read: the read models (lookups only, never aggregates). */
export interface AuditLookup {
  knex: Knex;
}

/** PascalCase type to words: `RolesChanged` → "roles changed". */
export function typeInWords(type: string): string {
  return type
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
}

/** A value as a reviewer reads it: arrays as [a, b], null as "(none)". */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  if (Array.isArray(value)) return `[${value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}]`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
