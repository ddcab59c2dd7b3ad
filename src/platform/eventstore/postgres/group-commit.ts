/**
 * Group commit: appends that arrive while the store is busy wait briefly and
 * are then committed together, in one transaction with one WAL flush, instead of one each.
 * Up to `maxGroups` groups are in flight at once; an append arriving with a slot free starts
 * its own group at once, so a quiet store adds no wait. Under load the waiting appends
 * gather, and the next free slot takes up to `maxWrites` of them.
 *
 * What a group does with its writes (and how one write's refusal is kept from the others) is
 * the store's `commit`; this class only gathers them and hands each its own answer.
 */
export class GroupCommit<Write, Result> {
  private readonly queue: Array<{ write: Write; resolve: (result: Result) => void; reject: (error: unknown) => void }> =
    [];
  private running = 0;

  constructor(
    private readonly commit: (writes: Write[]) => Promise<Array<PromiseSettledResult<Result>>>,
    private readonly maxGroups: number,
    private readonly maxWrites: number,
  ) {}

  submit(write: Write): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.maxGroups && this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxWrites);
      this.running++;
      void this.run(group).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async run(group: GroupCommit<Write, Result>['queue']): Promise<void> {
    let outcomes: Array<PromiseSettledResult<Result>>;
    try {
      outcomes = await this.commit(group.map((entry) => entry.write));
    } catch (error) {
      outcomes = group.map(() => ({ status: 'rejected', reason: error }));
    }
    group.forEach((entry, i) => {
      const outcome = outcomes[i];
      if (outcome.status === 'fulfilled') entry.resolve(outcome.value);
      else entry.reject(outcome.reason);
    });
  }
}
