import type { CallErrorInfo } from '@noetl/dsl';

/** What a sandbox thread is started with (its `workerData`). */
export interface SandboxThreadData {
  /** Absolute paths: the thread's code is evaluated, so it resolves nothing relative to itself. */
  quickjsPath: string;
  emscriptenModulePath: string;
  /** Hard cap of the WebAssembly memory, in 64 KiB pages: QuickJS cannot allocate past it. */
  wasmMaxPages: number;
  memoryLimitBytes: number;
  maxStackSizeBytes: number;
}

/** Host to thread: run one call. */
export interface SandboxRun {
  id: number;
  /** User code already wrapped (`wrapJsCode`) and the console prelude. */
  code: string;
  prelude: string;
  inputJson: string;
  globals: string[];
  timeoutMs: number;
  /** How the timeout reads in a message: `2s`, or `2s (timeout 30s capped at the 2s ceiling)`. */
  timeoutText: string;
}

export type SandboxOutcome = { json: string | null } | { error: CallErrorInfo };

/** Thread to host. `recycle`: the thread's module crashed or ran out of memory; start a fresh one. */
export type SandboxMessage =
  | { type: 'ready' }
  | { type: 'output'; id: number; stream: 'stdout' | 'stderr'; text: string }
  | { type: 'done'; id: number; outcome: SandboxOutcome; recycle: boolean };
