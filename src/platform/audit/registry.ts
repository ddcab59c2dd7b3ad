import type { ContextModule } from '../context-module';
import type { AuditAggregate, AuditFinder, AuditLookup, AuditTarget } from './catalog';

/** A reviewer error (unknown flag, unparsable value): printed as is, never as a stack. */
export class AuditUsageError extends Error {
  readonly name = 'AuditUsageError';
}

/** Every context's audit catalog merged: kinds → aggregates, flags → finders, stream → entity. */
export interface AuditRegistry {
  contexts: string[];
  flags: string[];
  aggregate(kind: string): AuditAggregate | undefined;
  streamOf(target: Pick<AuditTarget, 'kind' | 'id'>, tenantId: string): string;
  /** The stream-name prefix every stream of a kind starts with (`identity.user-`). */
  prefixOf(kind: string): string;
  /** The entity a stream holds, when a catalog knows its aggregate. */
  entityOf(stream: string, tenantId: string): { kind: string; id: string; known: boolean };
  /** Entities a flag's value names; throws AuditUsageError for a flag no context answers. */
  find(lookup: AuditLookup, flag: string, tenantId: string, value: string): Promise<AuditTarget[]>;
}

const T = '\u0001T';
const I = '\u0001I';

export function buildAuditRegistry(contexts: readonly ContextModule[]): AuditRegistry {
  const byKind = new Map<string, AuditAggregate & { prefix: string }>();
  const finders = new Map<string, AuditFinder[]>();
  const names: string[] = [];
  for (const context of contexts) {
    if (!context.audit) continue;
    names.push(context.name);
    for (const entry of context.audit.aggregates) {
      const sample = entry.aggregate.stream(T, I);
      const cut = sample.indexOf(T);
      if (cut <= 0)
        throw new Error(
          `audit catalog of ${context.name}: the ${entry.kind} stream name must start with a prefix before the tenant id`,
        );
      if (byKind.has(entry.kind))
        throw new Error(`audit catalog of ${context.name}: kind ${entry.kind} is declared twice`);
      byKind.set(entry.kind, { ...entry, prefix: sample.slice(0, cut) });
    }
    for (const finder of context.audit.finders ?? [])
      finders.set(finder.flag, [...(finders.get(finder.flag) ?? []), finder]);
  }
  // Longest prefix first, so `graph.vertex-` never shadows a longer sibling.
  const prefixes = [...byKind.values()].sort((a, b) => b.prefix.length - a.prefix.length);
  return {
    contexts: names,
    flags: [...finders.keys()].sort(),
    aggregate: (kind) => byKind.get(kind),
    streamOf(target, tenantId) {
      const entry = byKind.get(target.kind);
      if (!entry) throw new AuditUsageError(`no context knows entities of kind ${target.kind}`);
      return entry.aggregate.stream(tenantId, target.id);
    },
    prefixOf(kind) {
      const entry = byKind.get(kind);
      if (!entry)
        throw new AuditUsageError(
          `no context knows entities of kind ${kind}; known: ${[...byKind.keys()].sort().join(', ')}`,
        );
      return entry.prefix;
    },
    entityOf(stream, tenantId) {
      const entry = prefixes.find((p) => stream.startsWith(p.prefix));
      if (entry) {
        const rest = stream.slice(entry.prefix.length);
        const id = rest.startsWith(`${tenantId}-`) ? rest.slice(tenantId.length + 1) : rest;
        return { kind: entry.kind, id, known: true };
      }
      // A context without a catalog yet: `<context>.<aggregate>-<tenant>-<id>` by convention.
      const dash = stream.indexOf('-');
      const kind = dash > 0 ? stream.slice(0, dash) : stream;
      const rest = dash > 0 ? stream.slice(dash + 1) : '';
      return { kind, id: rest.startsWith(`${tenantId}-`) ? rest.slice(tenantId.length + 1) : rest, known: false };
    },
    async find(lookup, flag, tenantId, value) {
      const list = finders.get(flag);
      if (!list) {
        throw new AuditUsageError(
          `--${flag}: no context answers it on this build (its audit catalog is not registered); flags answered: ${[
            ...finders.keys(),
          ]
            .sort()
            .map((f) => `--${f}`)
            .join(', ')}`,
        );
      }
      const found: AuditTarget[] = [];
      for (const finder of list) found.push(...(await finder.find(lookup, tenantId, value)));
      return found;
    },
  };
}
