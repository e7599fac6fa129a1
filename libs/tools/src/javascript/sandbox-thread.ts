/* eslint-disable @typescript-eslint/no-require-imports -- see the note on sandboxThreadMain */
import type { CallErrorInfo } from '@noetl/dsl';
import type { QuickJSContext, QuickJSHandle, QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten';
import type { SandboxMessage, SandboxOutcome, SandboxRun, SandboxThreadData } from './sandbox-protocol';

/** The one WebAssembly API used here (the project's libs have no lib.dom). */
declare const WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: { byteLength: number } } };

/**
 * The body of a JavaScript sandbox thread (`worker_threads`): it loads one QuickJS WebAssembly
 * module whose memory is capped from outside QuickJS (a `WebAssembly.Memory` with a maximum),
 * says `ready`, then runs calls one at a time, each in a fresh runtime and context with a heap
 * limit, a stack limit and an interrupt at its deadline. The host enforces the deadline again
 * from outside: it terminates a thread that does not answer in time.
 *
 * The WebAssembly maximum is the memory limit that holds: QuickJS's own limit undercounts
 * strings and typed arrays in this build (no malloc_usable_size), so a string bomb would grow
 * the memory to 2 GiB without it. At the cap a failed allocation may leave QuickJS unable to
 * build even its error object (the exception is `null`); a thread that reached the cap is
 * replaced, since WebAssembly memory never shrinks.
 *
 * The pool starts a thread from this function's source (`eval: true`), the same code whether
 * it runs compiled (dist/) or transpiled by the test runner. So it must be self-contained: it
 * refers to nothing outside its body but types, and requires its dependencies by the absolute
 * paths the host put in `workerData`.
 */
export function sandboxThreadMain(): void {
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const data = workerData as SandboxThreadData;
  const port = parentPort!;
  const quickjs = require(data.quickjsPath) as typeof import('quickjs-emscripten');
  const MiB = 1024 * 1024;
  const maxBytes = data.wasmMaxPages * 64 * 1024;

  const variant: QuickJSSyncVariant = {
    type: 'sync',
    importFFI: quickjs.RELEASE_SYNC.importFFI,
    importModuleLoader: async () => {
      const loaded = require(data.emscriptenModulePath) as { default?: unknown };
      return (loaded.default ?? loaded) as Awaited<ReturnType<QuickJSSyncVariant['importModuleLoader']>>;
    },
  };
  const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: data.wasmMaxPages });
  const post = (message: SandboxMessage): void => port.postMessage(message);

  let module: QuickJSWASMModule | undefined;
  quickjs.newQuickJSWASMModuleFromVariant(quickjs.newVariant(variant, { wasmMemory })).then(
    (loaded) => {
      module = loaded;
      post({ type: 'ready' });
    },
    (error: unknown) => {
      // The host sees the thread exit before `ready` and fails the call as retryable.
      throw error;
    },
  );

  port.on('message', (run: SandboxRun) => {
    let outcome: SandboxOutcome;
    let recycle = false;
    try {
      outcome = evaluate(module!, run);
      recycle = exhausted() || ('error' in outcome && outcome.error.code === 'OutOfMemory');
    } catch (error) {
      // The module itself failed (a host stack overflow inside WebAssembly, an abort): it cannot be used again.
      const text =
        error instanceof RangeError ? 'stack overflow (host stack exhausted)' : `sandbox failure: ${String(error).split('\n')[0]}`;
      outcome = { error: { kind: 'code', message: `javascript: ${text}`, retryable: false, code: 'SandboxCrash' } };
      recycle = true;
    }
    post({ type: 'done', id: run.id, outcome, recycle });
  });

  /** Allocation grows the memory in steps: within a few MiB of the cap, the next one fails. */
  function exhausted(): boolean {
    return wasmMemory.buffer.byteLength >= maxBytes - 4 * MiB;
  }

  function evaluate(quickjsModule: QuickJSWASMModule, run: SandboxRun): SandboxOutcome {
    const deadline = Date.now() + run.timeoutMs;
    const runtime = quickjsModule.newRuntime();
    try {
      runtime.setMemoryLimit(data.memoryLimitBytes);
      runtime.setMaxStackSize(data.maxStackSizeBytes);
      runtime.setInterruptHandler(() => Date.now() > deadline);
      const vm = runtime.newContext();
      try {
        return quickjs.Scope.withScope((scope): SandboxOutcome => {
          const fail = (handle: QuickJSHandle): SandboxOutcome => ({ error: describeError(vm.dump(scope.manage(handle)), run) });
          const json = scope.manage(vm.getProp(vm.global, 'JSON'));
          const stringify = scope.manage(vm.getProp(json, 'stringify'));
          const parse = scope.manage(vm.getProp(json, 'parse'));

          const emit = scope.manage(
            vm.newFunction('emit', (stream, text) => {
              post({
                type: 'output',
                id: run.id,
                stream: vm.getString(stream) === 'stderr' ? 'stderr' : 'stdout',
                text: vm.getString(text),
              });
            }),
          );
          vm.setProp(vm.global, '__noetl_emit', emit);
          const prelude = vm.evalCode(run.prelude);
          if (prelude.error) return fail(prelude.error);
          scope.manage(prelude.value);

          const parsed = vm.callFunction(parse, json, scope.manage(vm.newString(run.inputJson)));
          if (parsed.error) return fail(parsed.error);
          const inputHandle = scope.manage(parsed.value);
          vm.setProp(vm.global, 'input', inputHandle);
          for (const key of run.globals) vm.setProp(vm.global, key, scope.manage(vm.getProp(inputHandle, key)));

          const evaluated = vm.evalCode(run.code, 'step.js');
          if (evaluated.error) return fail(evaluated.error);
          const settled = settle(vm, scope.manage(evaluated.value), deadline);
          if ('error' in settled) return fail(settled.error);
          if (settled.owned) scope.manage(settled.value);
          const text = vm.callFunction(stringify, vm.undefined, settled.value);
          if (text.error) return fail(text.error);
          const serialised: unknown = vm.dump(scope.manage(text.value));
          return { json: typeof serialised === 'string' ? serialised : null };
        });
      } finally {
        vm.dispose();
      }
    } finally {
      runtime.dispose();
    }
  }

  /** Awaits a returned promise by running pending jobs (there is no I/O to wait for). */
  function settle(
    vm: QuickJSContext,
    handle: QuickJSHandle,
    deadline: number,
  ): { value: QuickJSHandle; owned: boolean } | { error: QuickJSHandle } {
    let state = vm.getPromiseState(handle);
    while (state.type === 'pending' && Date.now() <= deadline) {
      const jobs = vm.runtime.executePendingJobs();
      if (jobs.error) return { error: jobs.error };
      state = vm.getPromiseState(handle);
      if (state.type === 'pending' && jobs.value === 0) break;
    }
    // A settled promise's value is a new handle the caller must dispose; a plain value is `handle` itself.
    if (state.type === 'fulfilled') return state.notAPromise ? { value: handle, owned: false } : { value: state.value, owned: true };
    if (state.type === 'rejected') return { error: state.error };
    return { error: vm.newError('the returned promise never settled (the sandbox has no I/O to wait for)') };
  }

  function describeError(dumped: unknown, run: SandboxRun): CallErrorInfo {
    const record = typeof dumped === 'object' && dumped !== null ? (dumped as Record<string, unknown>) : {};
    const name = typeof record.name === 'string' ? record.name : 'Error';
    const message = typeof record.message === 'string' ? record.message : String(dumped);
    if (name === 'InternalError' && message === 'interrupted') {
      return { kind: 'timeout', message: `javascript: timed out after ${run.timeoutText}`, retryable: true, code: 'TIMEOUT' };
    }
    if (message === 'out of memory' || ((dumped === null || dumped === undefined) && exhausted())) {
      return {
        kind: 'code',
        message: `javascript: out of memory (limit ${Math.round(data.memoryLimitBytes / MiB)} MiB)`,
        retryable: false,
        code: 'OutOfMemory',
      };
    }
    const stack = typeof record.stack === 'string' ? stackHead(record.stack) : '';
    return { kind: 'code', message: `javascript: ${name}: ${message}${stack ? `\n${stack}` : ''}`, retryable: false, code: name };
  }

  /** The first frames of a stack (runaway recursion has thousands). */
  function stackHead(stack: string, frames = 8): string {
    const lines = stack
      .trim()
      .split('\n')
      .map((line) => line.trim());
    return lines.length > frames ? [...lines.slice(0, frames), `... ${lines.length - frames} more frames`].join('\n') : lines.join('\n');
  }
}
