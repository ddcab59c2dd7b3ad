/**
 * How a long stream's decision state is kept: every `every` events the handler stores the
 * state (as `toJSON` gives it) with the revision it covers; `version` changes whenever the
 * state's shape or `evolve` changes, which invalidates stored snapshots.
 */
export interface SnapshotPolicy<State> {
  every: number;
  version: number;
  toJSON(state: State): unknown;
  fromJSON(json: unknown): State;
}
