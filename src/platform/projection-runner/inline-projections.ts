import type { Knex } from 'knex';
import type { PoolClient } from 'pg';
import type { InlineProjections, RecordedEvent } from '../eventstore/types';
import type { Projector } from './projector';
import { inTransaction, onConnection } from '../infra/transaction';
import { inSpan, tracingOn } from '../observability/tracing';
import { openInlineGaps, recordInlineGaps } from './inline-gaps';

/**
 * A projector's `apply` threw inside an append: the append is rolled back with it, so the
 * command fails and nothing is stored (no event the read model never saw, no poison lane).
 */
export class InlineProjectionFailed extends Error {
  readonly name = 'InlineProjectionFailed';
  constructor(
    readonly projector: string,
    readonly event: { id: string; type: string; stream: string },
    readonly cause: unknown,
  ) {
    super(
      `inline projector ${projector} failed on ${event.type} ${event.id} of ${event.stream}: ${String((cause as Error)?.message ?? cause)}`,
    );
  }
}

/**
 * Inline projectors (as Marten's and Emmett's): the PostgreSQL store calls them in
 * the append's own transaction, on its own connection (through a knex bound to it), so a read
 * model a caller reads right after its command is written with the events, and the command
 * waits for no projector to read them back. Appends of other types never open a transaction.
 */
export function createInlineProjections(
  knex: Knex,
  projectors: Projector[],
  deferred: Projector[] = [],
): InlineProjections {
  const byType = new Map<string, Projector[]>();
  const forAll: Projector[] = [];
  for (const projector of [...projectors, ...deferred]) {
    if (!projector.eventTypes) forAll.push(projector);
    else for (const type of projector.eventTypes) byType.set(type, [...(byType.get(type) ?? []), projector]);
  }
  const wantedBy = (projector: Projector, events: RecordedEvent[]) =>
    projector.eventTypes ? events.filter((e) => byType.get(e.type)?.includes(projector)) : events;
  /**
   * The projectors an append of these types feeds: only their locks are taken. Usually one, for
   * which the gaps' check takes its short path (`OPEN_FUNCTION`).
   */
  const concerned = (types: readonly string[]) => {
    const fed = new Set([...forAll, ...types.flatMap((type) => byType.get(type) ?? [])]);
    return {
      applied: projectors.filter((p) => fed.has(p)).map((p) => ({ name: p.name, version: p.version })),
      recorded: deferred.filter((p) => fed.has(p)).map((p) => p.name),
    };
  };

  async function apply(trx: Knex.Transaction, events: RecordedEvent[], open: Set<string>): Promise<void> {
    // A projector this instance does not run at its tables' version, or one with gaps still to
    // drain, gets its events recorded for the leader instead: applied now, they would write
    // tables of another shape, or land before older events of the same rows (docs/runtime.md,
    // "Rolling deploys").
    const gaps = [...deferred, ...projectors.filter((p) => open.has(p.name))]
      .map((projector) => ({ projector: projector.name, events: wantedBy(projector, events) }))
      .filter((gap) => gap.events.length > 0);
    await recordInlineGaps(trx, gaps);
    // Each projector gets its events in log order, as a lane would hand them over.
    for (const projector of projectors) {
      if (open.has(projector.name)) continue;
      const wanted = wantedBy(projector, events);
      if (wanted.length === 0) continue;
      let at = wanted[0];
      const project = async () => {
        if (projector.applyBatch) await projector.applyBatch(trx, wanted);
        else for (at of wanted) await projector.apply(trx, at);
      };
      try {
        if (!tracingOn()) await project();
        else
          await inSpan(
            `inline projection ${projector.name}`,
            { 'projection.name': projector.name, 'projection.event_count': wanted.length },
            project,
          );
      } catch (error) {
        throw new InlineProjectionFailed(projector.name, { id: at.id, type: at.type, stream: at.stream }, error);
      }
    }
  }

  return {
    handles: (type) => forAll.length > 0 || byType.has(type),
    async transaction(connection, types, append) {
      const client = connection as PoolClient;
      // The projectors' queries run on the append's own connection, so inside its transaction.
      const trx = onConnection(knex, client) as unknown as Knex.Transaction;
      return inTransaction(client, async () => {
        // Sent before the append writes anything, so its events sort after every gap it sees;
        // not awaited: the append's statements queue behind it on the connection (pipelined
        // with it and BEGIN), and only `apply` needs its answer.
        const { applied, recorded } = concerned(types);
        const opening = openInlineGaps(client, applied, recorded);
        opening.catch(() => undefined);
        try {
          return await append(async (events) => apply(trx, events, await opening));
        } catch (error) {
          // Its failure aborted the transaction: the append then reports only that it was aborted.
          throw (
            (await opening.then(
              () => null,
              (failed: unknown) => failed,
            )) ?? error
          );
        }
      });
    },
  };
}
