import { type QuickJSContext, type QuickJSHandle, type QuickJSWASMModule, Scope } from 'quickjs-emscripten';
import { CallError, type CallErrorInfo } from '@noetl/dsl';
import type { Tool, ToolContext } from '../tool';
import { formatSeconds, isRecord, readTimeoutMs } from '../shared/read-config';
import { errorMessage, invalidConfig, throwIfAborted } from '../shared/tool-errors';
import { loadQuickJSModule } from './quickjs-module';
import { globalInputNames, JS_PRELUDE, wrapJsCode } from './wrap-js-code';

export interface JavaScriptToolOptions {
  /** Heap limit of one call's runtime (default 64 MiB). */
  memoryLimitBytes?: number;
  /** Stack limit of one call's runtime (default 256 KiB, about 1 300 nested calls). */
  maxStackSizeBytes?: number;
  /** Timeout when the config has none, in seconds (default 10). */
  defaultTimeoutSeconds?: number;
}

const MiB = 1024 * 1024;

type Outcome = { value: unknown } | { error: CallErrorInfo };

/**
 * `kind: javascript` (alias `js`): runs `code` in QuickJS (WebAssembly) with no Node APIs,
 * a memory limit and a deadline. Inputs are globals and also `input`. One module is shared;
 * each call gets a fresh runtime and context, disposed afterwards.
 */
export class JavaScriptTool implements Tool {
  readonly kind = 'javascript';
  private module?: Promise<QuickJSWASMModule>;

  constructor(private readonly options: JavaScriptToolOptions = {}) {}

  async run(config: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    throwIfAborted(ctx.signal, 'javascript');
    const code = config.code;
    if (typeof code !== 'string' || code.trim() === '') throw invalidConfig('javascript', 'code is required');
    const input = config.input ?? {};
    if (!isRecord(input)) throw invalidConfig('javascript', 'input must be a mapping');
    const timeoutMs = readTimeoutMs('javascript', config, this.options.defaultTimeoutSeconds ?? 10);
    const { outcome, crashed } = this.evaluate(await this.loadModule(), code, input, timeoutMs, ctx);
    // A crashed WebAssembly module cannot be used again: the next call loads a fresh one.
    if (crashed !== undefined) this.module = undefined;
    if (outcome === undefined) {
      throw new CallError({ kind: 'code', message: `javascript: ${describeCrash(crashed)}`, retryable: false, code: 'SandboxCrash' });
    }
    if ('error' in outcome) throw new CallError(outcome.error);
    return outcome.value;
  }

  async close(): Promise<void> {
    this.module = undefined;
  }

  private async loadModule(): Promise<QuickJSWASMModule> {
    this.module ??= loadQuickJSModule();
    try {
      return await this.module;
    } catch (err) {
      this.module = undefined;
      throw new CallError({ kind: 'internal', message: `javascript: cannot load QuickJS: ${errorMessage(err)}`, retryable: true, code: 'SANDBOX_UNAVAILABLE' });
    }
  }

  /** Runs one call; `crashed` is set when the sandbox itself failed (during the run or its disposal). */
  private evaluate(
    quickjs: QuickJSWASMModule,
    code: string,
    input: Record<string, unknown>,
    timeoutMs: number,
    ctx: ToolContext,
  ): { outcome?: Outcome; crashed?: unknown } {
    const deadline = Date.now() + timeoutMs;
    const memoryLimit = this.options.memoryLimitBytes ?? 64 * MiB;
    let outcome: Outcome | undefined;
    try {
      const runtime = quickjs.newRuntime();
      try {
        runtime.setMemoryLimit(memoryLimit);
        runtime.setMaxStackSize(this.options.maxStackSizeBytes ?? 256 * 1024);
        runtime.setInterruptHandler(() => Date.now() > deadline || ctx.signal.aborted);
        const vm = runtime.newContext();
        try {
          outcome = Scope.withScope((scope): Outcome => {
            const fail = (handle: QuickJSHandle): { error: CallErrorInfo } => ({
              error: describeError(vm.dump(scope.manage(handle)), { timeoutMs, memoryLimit, signal: ctx.signal }),
            });
            const json = scope.manage(vm.getProp(vm.global, 'JSON'));
            const stringify = scope.manage(vm.getProp(json, 'stringify'));
            const parse = scope.manage(vm.getProp(json, 'parse'));

            const emit = scope.manage(
              vm.newFunction('emit', (stream, text) => {
                ctx.onOutput?.(vm.getString(stream) === 'stderr' ? 'stderr' : 'stdout', vm.getString(text));
              }),
            );
            vm.setProp(vm.global, '__noetl_emit', emit);
            const prelude = vm.evalCode(JS_PRELUDE);
            if (prelude.error) return fail(prelude.error);
            scope.manage(prelude.value);

            const parsed = vm.callFunction(parse, json, scope.manage(vm.newString(JSON.stringify(input))));
            if (parsed.error) return fail(parsed.error);
            const inputHandle = scope.manage(parsed.value);
            vm.setProp(vm.global, 'input', inputHandle);
            for (const key of globalInputNames(input)) vm.setProp(vm.global, key, scope.manage(vm.getProp(inputHandle, key)));

            const evaluated = vm.evalCode(wrapJsCode(code), 'step.js');
            if (evaluated.error) return fail(evaluated.error);
            const settled = settle(vm, scope.manage(evaluated.value), deadline);
            if ('error' in settled) return fail(settled.error);
            if (settled.owned) scope.manage(settled.value);
            const text = vm.callFunction(stringify, vm.undefined, settled.value);
            if (text.error) return fail(text.error);
            const serialised: unknown = vm.dump(scope.manage(text.value));
            return { value: typeof serialised === 'string' ? (JSON.parse(serialised) as unknown) : null };
          });
        } finally {
          vm.dispose();
        }
      } finally {
        runtime.dispose();
      }
    } catch (err) {
      return { outcome, crashed: err };
    }
    return { outcome };
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

function describeError(
  dumped: unknown,
  at: { timeoutMs: number; memoryLimit: number; signal: AbortSignal },
): CallErrorInfo {
  const name = isRecord(dumped) && typeof dumped.name === 'string' ? dumped.name : 'Error';
  const message = isRecord(dumped) && typeof dumped.message === 'string' ? dumped.message : String(dumped);
  if (name === 'InternalError' && message === 'interrupted') {
    if (at.signal.aborted) return { kind: 'cancelled', message: 'javascript: cancelled', retryable: false, code: 'CANCELLED' };
    return { kind: 'timeout', message: `javascript: timed out after ${formatSeconds(at.timeoutMs)}`, retryable: true, code: 'TIMEOUT' };
  }
  if (message === 'out of memory') {
    return { kind: 'code', message: `javascript: out of memory (limit ${Math.round(at.memoryLimit / MiB)} MiB)`, retryable: false, code: 'OutOfMemory' };
  }
  const stack = isRecord(dumped) && typeof dumped.stack === 'string' ? stackHead(dumped.stack) : '';
  return { kind: 'code', message: `javascript: ${name}: ${message}${stack ? `\n${stack}` : ''}`, retryable: false, code: name };
}

/** The first frames of a stack (runaway recursion has thousands). */
function stackHead(stack: string, frames = 8): string {
  const lines = stack.trim().split('\n').map((line) => line.trim());
  return lines.length > frames ? [...lines.slice(0, frames), `... ${lines.length - frames} more frames`].join('\n') : lines.join('\n');
}

function describeCrash(err: unknown): string {
  return err instanceof RangeError ? 'stack overflow (host stack exhausted)' : `sandbox failure: ${errorMessage(err).split('\n')[0]}`;
}
