import type { AuditTarget } from '../../platform/audit/catalog';
import type { ReviewDeps } from './review';

export interface EntityAsOf {
  title: string;
  kind: string;
  id: string;
  /** Events folded (those recorded at or before `asOf`), and the last one's revision and time. */
  events: number;
  revision: number | null;
  lastEventAt: string | null;
  state: unknown;
  /** Every folded event's signature matched its chain. */
  verified: boolean;
  tampered: number;
}

const PAGE = 1000;

/**
 * An entity as it stood at a moment: its stream folded from revision 0 with the aggregate
 * definition the commands use (`evolve`, `read` with its upcasters), stopping at the first
 * event recorded after `asOf`. Signatures are checked along the way.
 */
export async function entityAsOf(
  deps: ReviewDeps,
  tenantId: string,
  target: AuditTarget,
  asOf: Date,
): Promise<EntityAsOf> {
  const entry = deps.registry.aggregate(target.kind);
  if (!entry) throw new Error(`no context knows entities of kind ${target.kind}`);
  const { aggregate } = entry;
  const stream = aggregate.stream(tenantId, target.id);
  let state = aggregate.initialState;
  let events = 0;
  let revision: number | null = null;
  let lastEventAt: string | null = null;
  let previous: string | null = null;
  let next = 0n;
  let tampered = 0;
  for (;;) {
    const page = await deps.store.readStream(stream, { from: next, limit: PAGE });
    let done = page.length < PAGE;
    for (const event of page) {
      if (event.recordedAt.getTime() > asOf.getTime()) {
        done = true;
        break;
      }
      if (event.revision !== next || !deps.signer.matches(event, previous)) tampered++;
      state = aggregate.evolve(state, aggregate.read(event));
      previous = String(event.metadata.signature ?? '');
      next = event.revision + 1n;
      events++;
      revision = Number(event.revision);
      lastEventAt = event.recordedAt.toISOString();
    }
    if (done) break;
  }
  return {
    title: target.title,
    kind: target.kind,
    id: target.id,
    events,
    revision,
    lastEventAt,
    state,
    verified: tampered === 0,
    tampered,
  };
}
