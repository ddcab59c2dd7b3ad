import path from 'node:path';
import { UnsupportedMediaType } from '../../domain-errors';
import { UnreadableFile } from './errors';
import { type ExtractedText, type ExtractionOptions, keepHead, type ReadText } from './extract';
import { createWorkerPool, TaskTimedOut, WorkerFailed } from './worker-pool';

/**
 * Text extraction for uploads, run on worker threads: a 10 MB document is parsed by
 * libraries that never yield, and on the request thread that would stall every other
 * request of the platform until it is done.
 */
export interface ExtractionPool {
  extract(bytes: Buffer, options?: ExtractionOptions): Promise<ExtractedText>;
  close(): Promise<void>;
  /** Worker threads alive now. */
  size(): number;
}

export interface ExtractionPoolOptions {
  workers: number;
  timeLimitMs: number;
  /** A worker idle this long exits (default 30 s); the next upload starts one again. */
  idleMs?: number;
  /** Heap ceiling per worker (default 256 MB): a file that needs more is refused, not the process. */
  maxHeapMb?: number;
  maxYoungMb?: number;
  /** Another worker module speaking the same protocol (tests). */
  script?: string;
  /** Heavy files read at once (default 1) and when a running file counts as heavy (default 1 s). */
  maxHeavy?: number;
  slowAfterMs?: number;
}

/** Files past this size go to the heavy lane from the start. */
export const HEAVY_UPLOAD_BYTES = 1024 * 1024;

export interface ExtractionRequest {
  bytes: Uint8Array;
  options: ExtractionOptions;
}

export type ExtractionReply =
  | { ok: true; value: ReadText }
  | {
      ok: false;
      error:
        | { type: 'unreadable'; reason: UnreadableFile['reason']; message: string }
        | { type: 'unsupported' | 'failed'; message: string };
    };

const WORKER_SCRIPT = path.join(__dirname, `extraction-worker${path.extname(__filename)}`);

export function createExtractionPool(options: ExtractionPoolOptions): ExtractionPool {
  // One heavy file at a time (its memory is the pool's largest cost); light files never
  // queue behind it, and a file found slow while it runs counts as heavy (worker-pool.ts).
  const pool = createWorkerPool<ExtractionRequest, ExtractionReply>({
    script: options.script ?? WORKER_SCRIPT,
    size: options.workers,
    timeLimitMs: options.timeLimitMs,
    idleMs: options.idleMs ?? 30_000,
    resourceLimits: {
      maxOldGenerationSizeMb: options.maxHeapMb ?? 128,
      maxYoungGenerationSizeMb: options.maxYoungMb ?? 16,
    },
    maxHeavy: options.maxHeavy ?? 1,
    slowAfterMs: options.slowAfterMs ?? 1000,
  });
  return {
    async extract(bytes, extractionOptions = {}) {
      // The worker gets its own copy, moved rather than cloned; the caller keeps `bytes`.
      const copy = new Uint8Array(bytes);
      let reply: ExtractionReply;
      try {
        const remake = () => {
          const again = new Uint8Array(bytes);
          return { request: { bytes: again, options: extractionOptions }, transfer: [again.buffer] };
        };
        reply = await pool.run({ bytes: copy, options: extractionOptions }, [copy.buffer], {
          lane: bytes.length > HEAVY_UPLOAD_BYTES ? 'heavy' : 'light',
          weight: bytes.length,
          remake,
        });
      } catch (error) {
        if (error instanceof TaskTimedOut)
          throw new UnreadableFile(
            'timeout',
            'The file took too long to read; split it into smaller files or save it in a simpler form, then upload it again.',
          );
        if (error instanceof WorkerFailed)
          throw new UnreadableFile(
            'damaged',
            'The file could not be read: reading it failed or needed more memory than an upload may use.',
          );
        throw error;
      }
      // Cut to tokens here: a few ms for the ≤ 64k characters a reader returns, and one
      // tokenizer for the process instead of one per worker thread.
      if (reply.ok) return keepHead(reply.value, extractionOptions.maxTokens);
      const { error } = reply;
      if (error.type === 'unreadable') throw new UnreadableFile(error.reason, error.message);
      if (error.type === 'unsupported') throw new UnsupportedMediaType(error.message);
      throw new Error(`text extraction failed: ${error.message}`);
    },
    close: () => pool.close(),
    size: () => pool.size(),
  };
}
