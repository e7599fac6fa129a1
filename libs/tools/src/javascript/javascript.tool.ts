import { CallError } from '@noetl/dsl';
import type { Tool, ToolContext } from '../tool';
import { cappedTimeout, isRecord, type CappedTimeout } from '../shared/read-config';
import { invalidConfig, throwIfAborted } from '../shared/tool-errors';
import { SandboxPool, type SandboxPoolOptions } from './sandbox-pool';
import { globalInputNames, JS_PRELUDE, wrapJsCode } from './wrap-js-code';

export interface JavaScriptToolOptions extends SandboxPoolOptions {
  /** Timeout when the config has none, in seconds (default 10). */
  defaultTimeoutSeconds?: number;
  /** Ceiling of any `timeout`, in seconds (default 60): a larger one is capped, and the timeout message says so. */
  maxTimeoutSeconds?: number;
}

/**
 * `kind: javascript` (alias `js`): runs `code` in QuickJS (WebAssembly) with no Node APIs, a
 * memory limit and a deadline, in a pool of threads off the event loop (`SandboxPool`). Inputs
 * are globals and also `input`. Each call gets a fresh runtime and context.
 */
export class JavaScriptTool implements Tool {
  readonly kind = 'javascript';
  private readonly pool: SandboxPool;

  constructor(private readonly options: JavaScriptToolOptions = {}) {
    this.pool = new SandboxPool(options);
  }

  async run(config: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    throwIfAborted(ctx.signal, 'javascript');
    const code = config.code;
    if (typeof code !== 'string' || code.trim() === '') throw invalidConfig('javascript', 'code is required');
    const input = config.input ?? {};
    if (!isRecord(input)) throw invalidConfig('javascript', 'input must be a mapping');
    const { timeoutMs, timeoutText } = this.timeout(config);
    const outcome = await this.pool.run({
      run: {
        code: wrapJsCode(code),
        prelude: JS_PRELUDE,
        inputJson: JSON.stringify(input),
        globals: globalInputNames(input),
        timeoutMs,
        timeoutText,
      },
      signal: ctx.signal,
      ...(ctx.onOutput ? { onOutput: ctx.onOutput } : {}),
    });
    if ('error' in outcome) throw new CallError(outcome.error);
    return outcome.json === null ? null : (JSON.parse(outcome.json) as unknown);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** The config's timeout, capped at the ceiling; the text says when it was capped. */
  private timeout(config: Record<string, unknown>): CappedTimeout {
    return cappedTimeout('javascript', config, this.options.defaultTimeoutSeconds ?? 10, this.options.maxTimeoutSeconds ?? 60);
  }
}
