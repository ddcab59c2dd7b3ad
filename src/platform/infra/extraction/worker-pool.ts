import path from 'node:path';
import { type ResourceLimits, Worker } from 'node:worker_threads';

/**
 * A small pool of worker threads, each running one task at a time, so CPU-heavy work
 * (reading an uploaded document) never holds the request thread. Workers start on demand,
 * are unref'd while idle and exit after `idleMs` without work (a worker that has read a PDF
 * holds tens of MB until it goes); a task past its time limit has its worker terminated and
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
  /**
   * Memory ceilings per worker (V8's heap generations), so one pathological file cannot
   * exhaust the process: past them the worker dies and its task fails. Default: a 512 MB old
   * generation.
   */
  resourceLimits?: ResourceLimits;
  /** A worker without a task for this long exits; the next task starts a fresh one. Default: never. */
  idleMs?: number;
  /**
   * Heavy tasks (lane `heavy`, or any task running longer than `slowAfterMs`) that may run
   * at once; default: all workers but one. Heavy tasks also never take the last worker a
   * light task could use.
   */
  maxHeavy?: number;
  slowAfterMs?: number;
  /**
   * Extra workers, beyond `size`, started only for a light task that would otherwise
   * queue behind heavy ones; stopped again once idle. Default 1.
   */
  burst?: number;
}

export type Lane = 'light' | 'heavy';

export interface WorkerPool<Request, Reply> {
  run(
    request: Request,
    transfer?: ArrayBuffer[],
    options?: { lane?: Lane; weight?: number; remake?: () => { request: Request; transfer: ArrayBuffer[] } },
  ): Promise<Reply>;
  close(): Promise<void>;
  /** Workers alive now (for tests and metrics). */
  size(): number;
}

export class TaskTimedOut extends Error {}
export class WorkerFailed extends Error {}
export class PoolClosed extends Error {}

interface Task {
  id: number;
  lane: Lane;
  startedAt: number;
  request: unknown;
  transfer: ArrayBuffer[];
  /** A fresh copy of the request, for a task taken off its worker to run later (see dispatch). */
  remake?: () => { request: unknown; transfer: ArrayBuffer[] };
  /** How big the work looks (bytes): of the tasks found slow, the biggest are taken off first. */
  weight: number;
  resolve(reply: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  online: boolean;
  task: Task | null;
  timer: NodeJS.Timeout | null;
  idleTimer: NodeJS.Timeout | null;
}

export function createWorkerPool<Request, Reply>(options: WorkerPoolOptions): WorkerPool<Request, Reply> {
  const slots: Slot[] = [];
  const queue: Task[] = [];
  let nextId = 1;
  let closed = false;

  function spawn(): Slot {
    const worker = startWorker(options.script, options.resourceLimits ?? { maxOldGenerationSizeMb: 512 });
    const slot: Slot = { worker, online: false, task: null, timer: null, idleTimer: null };
    worker.on('online', () => {
      slot.online = true;
      if (slot.task) {
        // Time is accounted from when the task really runs, not from a worker's start-up.
        slot.task.startedAt = Date.now();
        startTimer(slot);
        if (!closed) dispatch();
      }
    });
    worker.on('message', (message: { id: number; reply: unknown }) => {
      const task = slot.task;
      if (!task || task.id !== message.id) return;
      finish(slot);
      task.resolve(message.reply);
      dispatch();
      if (!slot.task) rest(slot);
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

  /** A worker left without work starts counting towards `idleMs`. */
  function rest(slot: Slot): Slot {
    if (options.idleMs === undefined || slot.idleTimer) return slot;
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = null;
      if (!slot.task && slots.includes(slot)) stopIdle(slot);
    }, options.idleMs);
    slot.idleTimer.unref();
    return slot;
  }

  /** Takes an idle worker out of the pool and ends its thread (its memory goes with it). */
  function stopIdle(slot: Slot): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    slots.splice(slots.indexOf(slot), 1);
    slot.worker.removeAllListeners();
    void slot.worker.terminate();
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

  const maxHeavy = Math.max(1, options.maxHeavy ?? options.size - 1);
  const slowAfterMs = options.slowAfterMs ?? 1000;
  const burst = options.burst ?? 1;
  let recheck: NodeJS.Timeout | null = null;
  /** Heavy: declared so, or found so by the time it has taken (per-task time accounting). */
  const heavy = (task: Task, now: number) => task.lane === 'heavy' || now - task.startedAt > slowAfterMs;

  function start(slot: Slot, task: Task): void {
    task.startedAt = slot.online ? Date.now() : Number.POSITIVE_INFINITY;
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    slot.task = task;
    slot.worker.ref();
    if (slot.online) startTimer(slot);
    slot.worker.postMessage({ id: task.id, request: task.request }, task.transfer);
  }

  /**
   * Lanes: a light task takes any free worker, and when every worker is held by heavy work
   * it gets a burst worker of its own rather than queueing behind a 30-second file. A
   * heavy task waits while `maxHeavy` heavy tasks run (which also bounds their memory) and
   * never takes the last worker a light task could use.
   */
  function dispatch(): void {
    const now = Date.now();
    preemptExcessHeavy(now);
    for (let i = 0; i < queue.length;) {
      const task = queue[i];
      const idle = slots.find((s) => s.task === null);
      const capacity = slots.filter((s) => s.task === null).length + Math.max(0, options.size - slots.length);
      const running = slots.filter((s) => s.task !== null);
      const heavyRunning = running.filter((s) => heavy(s.task!, now)).length;
      let slot: Slot | null = null;
      if (task.lane === 'heavy') {
        const leavesOneForLight = options.size === 1 || capacity >= 2;
        if (heavyRunning < maxHeavy && leavesOneForLight && capacity >= 1) slot = idle ?? spawn();
      } else if (capacity >= 1) slot = idle ?? spawn();
      else if (running.length > 0 && heavyRunning === running.length && slots.length < options.size + burst)
        slot = spawn();
      if (!slot) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      start(slot, task);
    }
    if (closed) return;
    // Look again when a running task is about to be found slow.
    if (recheck) clearTimeout(recheck);
    recheck = null;
    const crossings = slots
      .filter((s) => s.task && !heavy(s.task, now) && Number.isFinite(s.task.startedAt))
      .map((s) => s.task!.startedAt + slowAfterMs + 1 - now);
    if (crossings.length > 0) {
      recheck = setTimeout(dispatch, Math.max(1, Math.min(...crossings)));
      recheck.unref();
    }
    const busy = slots.filter((s) => s.task !== null);
    const idle = slots.filter((s) => s.task === null);
    if (busy.length > 0 && idle.length === 0 && slots.length < options.size + burst) {
      // A warm worker for the next light task while every worker is busy: starting one
      // (tsx, the PDF reader) takes seconds, longer than most light files take to read.
      rest(spawn()).worker.unref();
    } else {
      // Beyond the pool's size, idle workers go (one stays warm while others are busy).
      const surplus = Math.min(idle.length - (busy.length > 0 ? 1 : 0), slots.length - options.size);
      for (const slot of idle.slice(0, Math.max(0, surplus))) stopIdle(slot);
    }
  }

  /**
   * Time accounting: light tasks found slow count as heavy. When that puts more heavy
   * tasks on workers than `maxHeavy` allows (their memory is what the limit bounds), the
   * biggest (then youngest) found-slow ones are taken off their workers and queued again as heavy, to
   * run from the start once a heavy slot is free (their time limit starting afresh).
   */
  function preemptExcessHeavy(now: number): void {
    const heavySlots = slots.filter((s) => s.task && heavy(s.task, now));
    let excess = heavySlots.length - maxHeavy;
    // Biggest first, then youngest: a small file slow on a cold worker is not what fills memory.
    const victims = heavySlots.sort((a, b) => b.task!.weight - a.task!.weight || b.task!.startedAt - a.task!.startedAt);
    for (const slot of victims) {
      if (excess <= 0) break;
      const task = slot.task!;
      if (task.lane !== 'light' || !task.remake) continue;
      slots.splice(slots.indexOf(slot), 1);
      finish(slot);
      slot.worker.removeAllListeners();
      void slot.worker.terminate();
      const fresh = task.remake();
      Object.assign(task, { lane: 'heavy', request: fresh.request, transfer: fresh.transfer, startedAt: 0 });
      queue.unshift(task);
      excess--;
    }
  }

  return {
    run(request, transfer = [], runOptions = {}) {
      if (closed) return Promise.reject(new PoolClosed('the worker pool is closed'));
      return new Promise<Reply>((resolve, reject) => {
        queue.push({
          id: nextId++,
          lane: runOptions.lane ?? 'light',
          startedAt: 0,
          request,
          transfer,
          remake: runOptions.remake,
          weight: runOptions.weight ?? 0,
          resolve: resolve as (reply: unknown) => void,
          reject,
        });
        dispatch();
      });
    },
    size: () => slots.length,
    async close() {
      closed = true;
      if (recheck) clearTimeout(recheck);
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
function startWorker(script: string, resourceLimits: ResourceLimits): Worker {
  if (path.extname(script) !== '.ts') return new Worker(script, { resourceLimits });
  const bootstrap = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(script)});`;
  return new Worker(bootstrap, { eval: true, resourceLimits });
}
