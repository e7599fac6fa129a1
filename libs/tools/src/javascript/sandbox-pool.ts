import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CallErrorInfo } from '@noetl/dsl';
import type { OutputStream } from '../tool';
import type { SandboxMessage, SandboxOutcome, SandboxRun, SandboxThreadData } from './sandbox-protocol';
import { sandboxThreadMain } from './sandbox-thread';

export interface SandboxPoolOptions {
  /** Threads, each running one call at a time (default: the CPU count, at most 4). */
  threads?: number;
  /** QuickJS heap limit of one call (default 64 MiB). */
  memoryLimitBytes?: number;
  /** QuickJS stack limit of one call (default 256 KiB, about 1 300 nested calls). */
  maxStackSizeBytes?: number;
  /** How long past its deadline a call may take to stop by itself before its thread is terminated (default 250 ms). */
  graceMs?: number;
}

export interface SandboxCall {
  run: Omit<SandboxRun, 'id'>;
  signal: AbortSignal;
  onOutput?(stream: OutputStream, text: string): void;
}

const MiB = 1024 * 1024;
const WASM_PAGE = 64 * 1024;
/** Beyond the QuickJS heap, the WebAssembly memory holds the module's own data and C stack (its initial 16 MiB). */
const WASM_HEADROOM_BYTES = 16 * MiB;

const THREAD_SOURCE = `(${sandboxThreadMain.toString()})()`;

/**
 * A pool of `worker_threads`, each with one QuickJS module, so user JavaScript never runs on
 * the event loop that answers health probes and heartbeats. Limits are enforced from outside
 * the sandbox: the WebAssembly memory has a hard maximum, the thread's V8 heap has resource
 * limits, and a call that outlives its deadline (a regular expression QuickJS cannot
 * interrupt, say) or its signal gets its thread terminated; the slot starts a fresh thread
 * for the next call. Calls beyond the thread count wait for a free slot.
 */
export class SandboxPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Array<{ resolve: (slot: Slot) => void; reject: (error: Error) => void }> = [];
  private readonly threadData: SandboxThreadData;
  private readonly size: number;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: SandboxPoolOptions = {}) {
    this.size = Math.max(1, options.threads ?? Math.min(4, availableParallelism()));
    const memoryLimitBytes = options.memoryLimitBytes ?? 64 * MiB;
    this.threadData = {
      quickjsPath: require.resolve('quickjs-emscripten'),
      emscriptenModulePath: require.resolve('@jitl/quickjs-wasmfile-release-sync/emscripten-module'),
      wasmMaxPages: Math.ceil((memoryLimitBytes + WASM_HEADROOM_BYTES) / WASM_PAGE),
      memoryLimitBytes,
      maxStackSizeBytes: options.maxStackSizeBytes ?? 256 * 1024,
    };
  }

  /** Runs one call in a free thread. Never rejects: every failure is an outcome with a classified error. */
  async run(call: SandboxCall): Promise<SandboxOutcome> {
    if (call.signal.aborted) return { error: CANCELLED };
    let slot: Slot;
    try {
      slot = await this.acquire(call.signal);
    } catch (error) {
      return { error: call.signal.aborted ? CANCELLED : unavailable(error) };
    }
    try {
      return await this.dispatch(slot, call);
    } finally {
      this.release(slot);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error('the sandbox pool is closed'));
    await Promise.allSettled(this.slots.splice(0).map((slot) => slot.thread.terminate()));
  }

  private async acquire(signal: AbortSignal): Promise<Slot> {
    if (this.closed) throw new Error('the sandbox pool is closed');
    const index = this.slots.findIndex((slot) => !slot.busy);
    if (index !== -1) {
      // A thread that died while idle is replaced before anything is sent to it.
      const slot = this.slots[index]!.dead ? (this.slots[index] = this.startSlot()) : this.slots[index]!;
      slot.busy = true;
      return slot;
    }
    if (this.slots.length < this.size) {
      const slot = this.startSlot();
      slot.busy = true;
      this.slots.push(slot);
      return slot;
    }
    return new Promise<Slot>((resolve, reject) => {
      const waiter = {
        resolve: (slot: Slot) => {
          signal.removeEventListener('abort', onAbort);
          resolve(slot);
        },
        reject,
      };
      const onAbort = (): void => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(new Error('cancelled'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** A slot whose thread died (terminated, crashed, out of memory) gets a fresh one before the next call. */
  private release(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (slot.dead && index !== -1) {
      const fresh = this.startSlot();
      this.slots[index] = fresh;
      slot = fresh;
    }
    slot.busy = false;
    slot.thread.unref();
    const next = this.waiting.shift();
    if (next && !this.closed) {
      slot.busy = true;
      next.resolve(slot);
    }
  }

  private startSlot(): Slot {
    const thread = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: this.threadData,
      // The host-side copies of inputs and results live on the thread's V8 heap: bound it too.
      resourceLimits: {
        maxOldGenerationSizeMb: Math.max(64, Math.ceil((2 * this.threadData.memoryLimitBytes) / MiB)),
        maxYoungGenerationSizeMb: 16,
        stackSizeMb: 4,
      },
      stdout: true,
      stderr: true,
    });
    thread.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: SandboxMessage): void => {
        if (message.type !== 'ready') return;
        thread.off('message', onMessage);
        resolve();
      };
      thread.on('message', onMessage);
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`the sandbox thread exited with code ${code} while starting`)));
    });
    ready.catch(() => undefined);
    const slot: Slot = { thread, busy: false, dead: false, ready };
    thread.once('exit', () => {
      slot.dead = true;
    });
    // Nothing of a thread reaches the worker's own output; console lines travel as messages.
    thread.stdout.resume();
    thread.stderr.resume();
    return slot;
  }

  private async dispatch(slot: Slot, call: SandboxCall): Promise<SandboxOutcome> {
    slot.thread.ref();
    try {
      await slot.ready;
    } catch (error) {
      slot.dead = true;
      return { error: unavailable(error) };
    }
    const id = this.nextId++;
    const { thread } = slot;
    return new Promise<SandboxOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: SandboxOutcome, stop: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(watchdog);
        call.signal.removeEventListener('abort', onAbort);
        thread.off('message', onMessage);
        thread.off('error', onError);
        thread.off('exit', onExit);
        if (stop) {
          slot.dead = true;
          void thread.terminate();
        }
        resolve(outcome);
      };
      const onMessage = (message: SandboxMessage): void => {
        if (message.type === 'output' && message.id === id) call.onOutput?.(message.stream, message.text);
        if (message.type === 'done' && message.id === id) finish(message.outcome, message.recycle);
      };
      const onError = (error: Error): void => {
        const code = (error as { code?: unknown }).code;
        finish({ error: code === 'ERR_WORKER_OUT_OF_MEMORY' ? threadOutOfMemory() : crashed(error) }, true);
      };
      const onExit = (code: number): void => finish({ error: crashed(new Error(`the sandbox thread exited with code ${code}`)) }, true);
      const onAbort = (): void => finish({ error: CANCELLED }, true);
      // The call interrupts itself at its deadline; past the grace, QuickJS is stuck where it cannot be interrupted.
      const watchdog = setTimeout(
        () =>
          finish(
            {
              error: { kind: 'timeout', message: `javascript: timed out after ${call.run.timeoutText}`, retryable: true, code: 'TIMEOUT' },
            },
            true,
          ),
        call.run.timeoutMs + (this.options.graceMs ?? 250),
      );
      thread.on('message', onMessage);
      thread.once('error', onError);
      thread.once('exit', onExit);
      call.signal.addEventListener('abort', onAbort, { once: true });
      thread.postMessage({ ...call.run, id } satisfies SandboxRun);
    });
  }
}

interface Slot {
  thread: Worker;
  busy: boolean;
  /** Set once the thread exited or was told to: the slot needs a new thread. */
  dead: boolean;
  /** Resolves when the thread's QuickJS module is loaded. */
  ready: Promise<void>;
}

const CANCELLED: CallErrorInfo = { kind: 'cancelled', message: 'javascript: cancelled', retryable: false, code: 'CANCELLED' };

function unavailable(error: unknown): CallErrorInfo {
  const reason = error instanceof Error ? error.message : String(error);
  return { kind: 'internal', message: `javascript: the sandbox could not start: ${reason}`, retryable: true, code: 'SANDBOX_UNAVAILABLE' };
}

function threadOutOfMemory(): CallErrorInfo {
  return { kind: 'code', message: 'javascript: the sandbox thread ran out of memory', retryable: false, code: 'OutOfMemory' };
}

function crashed(error: Error): CallErrorInfo {
  return { kind: 'code', message: `javascript: sandbox failure: ${error.message.split('\n')[0]}`, retryable: false, code: 'SandboxCrash' };
}
