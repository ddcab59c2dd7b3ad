import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * A small pool of worker threads, each running one task at a time, so CPU-heavy work
 * (reading an uploaded document) never holds the request thread. Workers start on demand
 * and are unref'd while idle; a task past its time limit has its worker terminated and
 * replaced, since a synchronous parser stuck in a loop cannot be interrupted any other way.
 *
 * The worker module answers each `{id, request}` message with `{id, reply}`.
 */
export interface WorkerPoolOptions {
  /** Absolute path of the worker module (.ts under tsx, or .js). */
  script: string;
  size: number;
  /** Per task, from the moment its worker is running it. */
  timeLimitMs: number;
  /** Heap ceiling per worker, so one pathological file cannot exhaust the process. */
  maxHeapMb?: number;
}

export interface WorkerPool<Request, Reply> {
  run(request: Request, transfer?: ArrayBuffer[]): Promise<Reply>;
  close(): Promise<void>;
}

export class TaskTimedOut extends Error {}
export class WorkerFailed extends Error {}
export class PoolClosed extends Error {}

interface Task {
  id: number;
  request: unknown;
  transfer: ArrayBuffer[];
  resolve(reply: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  online: boolean;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

export function createWorkerPool<Request, Reply>(options: WorkerPoolOptions): WorkerPool<Request, Reply> {
  const slots: Slot[] = [];
  const queue: Task[] = [];
  let nextId = 1;
  let closed = false;

  function spawn(): Slot {
    const worker = startWorker(options.script, options.maxHeapMb);
    const slot: Slot = { worker, online: false, task: null, timer: null };
    worker.on('online', () => {
      slot.online = true;
      if (slot.task) startTimer(slot);
    });
    worker.on('message', (message: { id: number; reply: unknown }) => {
      const task = slot.task;
      if (!task || task.id !== message.id) return;
      finish(slot);
      task.resolve(message.reply);
      dispatch();
    });
    worker.on('error', (error) => retire(slot, new WorkerFailed(error.message)));
    worker.on('exit', (code) => retire(slot, new WorkerFailed(`worker exited with code ${code}`)));
    slots.push(slot);
    return slot;
  }

  function startTimer(slot: Slot): void {
    slot.timer = setTimeout(() => {
      retire(slot, new TaskTimedOut(`task took longer than ${options.timeLimitMs} ms`));
      void slot.worker.terminate();
    }, options.timeLimitMs);
  }

  function finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
    slot.worker.unref();
  }

  /** Takes a worker out of the pool, failing its task, and gives the queue a fresh one. */
  function retire(slot: Slot, error: Error): void {
    const index = slots.indexOf(slot);
    if (index === -1) return;
    slots.splice(index, 1);
    const task = slot.task;
    finish(slot);
    slot.worker.removeAllListeners('message');
    task?.reject(error);
    if (!closed) dispatch();
  }

  function dispatch(): void {
    while (queue.length > 0) {
      const slot = slots.find((s) => s.task === null) ?? (slots.length < options.size ? spawn() : null);
      if (!slot) return;
      const task = queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      if (slot.online) startTimer(slot);
      slot.worker.postMessage({ id: task.id, request: task.request }, task.transfer);
    }
  }

  return {
    run(request, transfer = []) {
      if (closed) return Promise.reject(new PoolClosed('the worker pool is closed'));
      return new Promise<Reply>((resolve, reject) => {
        queue.push({ id: nextId++, request, transfer, resolve: resolve as (reply: unknown) => void, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const task of queue.splice(0)) task.reject(new PoolClosed('the worker pool is closed'));
      const running = slots.splice(0);
      for (const slot of running) {
        slot.task?.reject(new PoolClosed('the worker pool is closed'));
        finish(slot);
      }
      await Promise.all(running.map((slot) => slot.worker.terminate()));
    },
  };
}

/**
 * The code runs under tsx, whose loader worker threads do not inherit (they get neither
 * `--require tsx/cjs` from mocha's in-process require nor the CLI's `--import`): a .ts
 * module is therefore started through a one-line bootstrap that registers tsx first.
 */
function startWorker(script: string, maxHeapMb = 512): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: maxHeapMb };
  if (path.extname(script) !== '.ts') return new Worker(script, { resourceLimits });
  const bootstrap = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(script)});`;
  return new Worker(bootstrap, { eval: true, resourceLimits });
}
