import type { CommandContext } from '../../platform/command-handling/command-handler';
import type { PlatformDeps } from '../../platform/context-module';
import { type AppendMessage, appendMessagesDecision } from '../../../commands/conversations/append-message';
import { type FinishTurn, finishTurnDecision } from '../../../commands/agents/finish-turn';
import { recordTurnProgressDecision } from '../../../commands/agents/record-turn-progress';
import type { ProgressEvent } from '../../../streams/agents/turn';

/** How long a wait may last before what the turn has done so far is written for its followers. */
export const SLOW_WAIT_MS = 40;

/**
 * What a running turn writes: its progress (turn stream) and its messages (conversation
 * stream), held and written together in one atomic write when the turn next waits on
 * something slow (a hosted model, a tool), before it asks for an approval, and with its end.
 * A turn whose model and tools answer at once (the embedded model) is then three writes:
 * the budget, the start with the user's message, and the end with everything else; SSE
 * followers of a slow turn still see each step within `SLOW_WAIT_MS` of its wait starting.
 */
export class TurnWrites {
  private progress: ProgressEvent[] = [];
  private messages: AppendMessage[] = [];
  /** The write in flight (started by a slow wait): the next one goes after it, in order. */
  private inFlight: Promise<void> = Promise.resolve();
  private failure: unknown = null;

  constructor(
    private readonly deps: Pick<PlatformDeps, 'handle' | 'logger'>,
    private readonly context: CommandContext,
    private readonly turn: { conversationId: string; executionId: string },
  ) {}

  record(events: ProgressEvent[]): void {
    this.progress.push(...events);
  }

  message(command: AppendMessage): void {
    this.messages.push(command);
  }

  /** Writes what is held now, after any write in flight; a failed write fails the turn here. */
  async flush(): Promise<void> {
    this.inFlight = this.inFlight.then(() => this.write());
    await this.settled();
  }

  /** Waits for `work`; should it take longer than `SLOW_WAIT_MS`, what is held is written meanwhile. */
  async whileWaiting<T>(work: Promise<T>): Promise<T> {
    const slow = setTimeout(() => {
      this.inFlight = this.inFlight.then(() => this.write());
    }, SLOW_WAIT_MS);
    try {
      return await work;
    } finally {
      clearTimeout(slow);
    }
  }

  /** Waits for the write in flight; a failed one fails the turn here. */
  async settled(): Promise<void> {
    await this.inFlight;
    if (this.failure !== null) throw this.failure;
  }

  /**
   * The turn's end, with the progress and messages still held, in one write. Should the end be
   * refused (the turn was ended meanwhile), the messages are still written on their own.
   */
  async finish(command: Omit<FinishTurn, 'type' | 'progress'>): Promise<void> {
    await this.inFlight;
    const progress = this.take();
    const { tenantId } = this.context;
    const end = finishTurnDecision(tenantId, this.turn.executionId, { ...command, progress: progress.progress });
    try {
      if (progress.messages.length === 0) await this.deps.handle(end.decider, end.stream, end.command, this.context);
      else
        await this.deps.handle.together(
          [end, appendMessagesDecision(tenantId, this.turn.conversationId, progress.messages)],
          this.context,
        );
    } catch (err) {
      if (progress.messages.length > 0) {
        const rows = appendMessagesDecision(tenantId, this.turn.conversationId, progress.messages);
        await this.deps
          .handle(rows.decider, rows.stream, rows.command, this.context)
          .catch((rowsErr) =>
            this.deps.logger.error(
              { err: rowsErr, executionId: this.turn.executionId },
              "the turn's last messages not recorded",
            ),
          );
      }
      throw err;
    }
  }

  private take(): { progress: ProgressEvent[]; messages: AppendMessage[] } {
    const held = { progress: this.progress, messages: this.messages };
    this.progress = [];
    this.messages = [];
    return held;
  }

  private async write(): Promise<void> {
    if (this.failure !== null) return;
    const { progress, messages } = this.take();
    if (progress.length === 0 && messages.length === 0) return;
    const { tenantId } = this.context;
    try {
      await this.deps.handle.together(
        [
          ...(progress.length > 0 ? [recordTurnProgressDecision(tenantId, this.turn.executionId, progress)] : []),
          ...(messages.length > 0 ? [appendMessagesDecision(tenantId, this.turn.conversationId, messages)] : []),
        ],
        this.context,
      );
    } catch (err) {
      this.failure = err;
    }
  }
}
