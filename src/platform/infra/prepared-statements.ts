import { createHash } from 'node:crypto';

/**
 * Statements the platform repeats are prepared on each connection: a statement with
 * parameters, seen `SIGHTINGS` times by this process, is sent with a name derived from its
 * text, so each connection parses, analyses and plans it once instead of on every call (pg's
 * extended protocol: Parse once, then Bind/Execute). The read models' queries come from knex's
 * builder with their values as parameters, so their texts repeat while their values vary.
 *
 * Measured on a turn (about 34 statements, `npm run bench -- http`): PostgreSQL's CPU per turn
 * fell by about a third (docs/benchmarks.md).
 *
 * Bounded: at most `MAX_NAMED` texts per process are ever named (each connection holds a
 * plan per name); texts seen once (a bulk insert of a size not seen before) are never named,
 * nor are calls that carry a batch in their bindings (`isBulk`).
 * A schema change under a prepared statement whose result columns moved (a read model rebuilt
 * with other columns while this process runs) is answered by running the text unnamed and
 * never naming it again. `DATABASE_PREPARED_STATEMENTS=off` turns this off for a
 * transaction-mode connection pooler (PgBouncer), which cannot keep a statement between
 * transactions.
 */
const SIGHTINGS = 2;
const MAX_NAMED = 1000;
/** Texts longer than this have their `?`s positioned anew each time (see `positionBindings`). */
const POSITIONED_MAX_CHARS = 4096;
/** PostgreSQL: "cached plan must not change result type" (feature_not_supported). */
const PLAN_CHANGED = '0A000';
const IN_FAILED_TRANSACTION = '25P02';
/** A binding past these sizes makes a call bulk (see `isBulk`); callers that name their few-valued calls use the same bound. */
export const BULK_ELEMENTS = 64;
const BULK_CHARS = 16_384;

/**
 * A call whose bindings carry a batch (an array of more than 64 values, or a text of more than
 * 16 KB: an array literal, a JSON document unnested in SQL) is sent unnamed, so PostgreSQL
 * plans it for its size. Named, after five runs a connection may keep a generic plan, costed
 * for an array of unknown length against statistics that still describe the table as it was
 * before a bulk load: the dashboard's row opening for an import batch of 2,250 entities then
 * tested every current entity of the tenant against the whole (unhashed) array, seconds per
 * batch late in a 100,000-row import. Its few-id calls (a command's) are still named.
 */
function isBulk(bindings: readonly unknown[]): boolean {
  for (const binding of bindings) {
    if (
      Array.isArray(binding)
        ? binding.length > BULK_ELEMENTS
        : typeof binding === 'string' && binding.length > BULK_CHARS
    )
      return true;
  }
  return false;
}

export class StatementNames {
  /** `sightings`: how often a text is seen before it is named (1: at once, for a known handful of texts). */
  constructor(private readonly sightings = SIGHTINGS) {}

  private readonly seen = new Map<string, number>();
  private readonly names = new Map<string, string>();
  /** Texts never named again (their prepared plan met a schema change). */
  private readonly refused = new Set<string>();

  /** The name to send `text` under, or undefined to send it unnamed. */
  nameFor(text: string): string | undefined {
    const named = this.names.get(text);
    if (named !== undefined) return named;
    if (this.names.size >= MAX_NAMED || this.refused.has(text)) return undefined;
    const count = (this.seen.get(text) ?? 0) + 1;
    if (count < this.sightings) {
      // The sightings map is bounded like the names: past it, only texts already counted count.
      if (this.seen.size < MAX_NAMED * 4) this.seen.set(text, count);
      return undefined;
    }
    this.seen.delete(text);
    const name = `p-${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
    this.names.set(text, name);
    return name;
  }

  /** A prepared plan of `text` met a schema change: it is sent unnamed from now on. */
  refuse(text: string): void {
    this.names.delete(text);
    this.refused.add(text);
  }

  get size(): number {
    return this.names.size;
  }
}

function isPlanChanged(error: unknown): boolean {
  return (
    (error as { code?: string } | null)?.code === PLAN_CHANGED &&
    /cached plan must not change result type/.test(String((error as Error).message))
  );
}

interface KnexQueryObject {
  sql: string;
  bindings?: unknown[];
  options?: { name?: string } & Record<string, unknown>;
}

/**
 * knex's PostgreSQL client, naming the repeated statements (its transactions' clients share
 * the class, so statements in a transaction are named too). One `StatementNames` per class,
 * that is per database connection set.
 */
export function preparingPgClient(): new (config: unknown) => unknown {
  // knex's own dialect class: subclassed, since knex accepts a client class in its config.
  const PgClient = require('knex/lib/dialects/postgres/index.js') as new (config: unknown) => {
    _query(connection: unknown, obj: KnexQueryObject): Promise<unknown>;
    positionBindings(sql: string): string;
  };
  const names = new StatementNames();
  const positioned = new Map<string, string>();
  return class PreparingPgClient extends PgClient {
    /**
     * knex turns every `?` into `$n` with a regular expression over the whole text, on every
     * query (1 % of a command's CPU): the repeated texts keep their answer. Bounded like the
     * names, and long texts (a bulk insert's) are not kept.
     */
    positionBindings(sql: string): string {
      let text = positioned.get(sql);
      if (text === undefined) {
        text = super.positionBindings(sql);
        if (sql.length <= POSITIONED_MAX_CHARS && positioned.size < MAX_NAMED) positioned.set(sql, text);
      }
      return text;
    }

    _query(connection: unknown, obj: KnexQueryObject): Promise<unknown> {
      if (!obj.bindings || obj.bindings.length === 0 || obj.options?.name || isBulk(obj.bindings))
        return super._query(connection, obj);
      const name = names.nameFor(obj.sql);
      if (name === undefined) return super._query(connection, obj);
      const unnamed = obj.options;
      obj.options = { ...unnamed, name };
      return super._query(connection, obj).catch((error) => {
        if (!isPlanChanged(error)) throw error;
        // Outside a transaction the text runs again unnamed; inside one, the transaction has
        // failed already, and the caller's retry sends the text unnamed.
        names.refuse(obj.sql);
        obj.options = unnamed;
        return super._query(connection, obj).catch((retryError) => {
          throw (retryError as { code?: string }).code === IN_FAILED_TRANSACTION ? error : retryError;
        });
      });
    }
  };
}
