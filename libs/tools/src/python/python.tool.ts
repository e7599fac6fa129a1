import { tmpdir } from 'node:os';
import { CallError } from '@noetl/dsl';
import type { Tool, ToolContext } from '../tool';
import { formatSeconds, readTimeoutMs } from '../shared/read-config';
import { cancelledError, throwIfAborted } from '../shared/tool-errors';
import { buildPythonRequest, pythonArgs, pythonEnv, serializePythonRequest } from './build-python-request';
import { PYTHON_DISABLED, PYTHON_NOT_FOUND, parsePythonOutcome, pythonExceptionError, pythonExitError } from './python-outcome';
import { runPythonProcess } from './run-python-process';

export interface PythonToolOptions {
  /** The interpreter (default `python3`, looked up on PATH). */
  pythonBinary?: string;
  /** The interpreter's environment (default: `pythonEnv(process.env)`, a safe subset). */
  env?: Record<string, string>;
  /** Working directory of the interpreter (default the OS temp dir). */
  cwd?: string;
  /** Timeout when the config has none, in seconds (default 300). */
  defaultTimeoutSeconds?: number;
}

/**
 * `kind: python`: runs `python3` in a subprocess per call (no shell) with the bootstrap in
 * `python-bootstrap.ts`; the result comes back on fd 3 as JSON, user output goes to
 * `ctx.onOutput`. Timeout and abort kill the process group.
 */
export class PythonTool implements Tool {
  readonly kind = 'python';
  private readonly env: Record<string, string>;

  constructor(private readonly options: PythonToolOptions = {}) {
    this.env = options.env ?? pythonEnv(process.env);
  }

  async run(config: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    if (!ctx.pythonEnabled) throw new CallError({ kind: 'internal', message: PYTHON_DISABLED, retryable: false, code: 'PYTHON_DISABLED' });
    throwIfAborted(ctx.signal, 'python');
    const stdin = serializePythonRequest(buildPythonRequest(config, ctx.scope));
    const timeoutMs = readTimeoutMs('python', config, this.options.defaultTimeoutSeconds ?? 300);
    const binary = this.options.pythonBinary ?? 'python3';
    const outcome = await runPythonProcess({
      binary,
      args: pythonArgs(),
      env: this.env,
      cwd: this.options.cwd ?? tmpdir(),
      stdin,
      timeoutMs,
      signal: ctx.signal,
      ...(ctx.onOutput ? { onOutput: (stream, text) => ctx.onOutput?.(stream, text) } : {}),
    });
    if (outcome.spawnError) {
      if (outcome.spawnError.code === 'ENOENT') throw new CallError({ kind: 'internal', message: PYTHON_NOT_FOUND, retryable: false, code: 'PYTHON_NOT_FOUND' });
      throw new CallError({ kind: 'internal', message: `python: cannot start ${binary}: ${outcome.spawnError.message}`, retryable: false, code: outcome.spawnError.code ?? 'SPAWN_FAILED' });
    }
    if (outcome.cancelled) throw cancelledError('python');
    if (outcome.timedOut) throw new CallError({ kind: 'timeout', message: `python: timed out after ${formatSeconds(timeoutMs)}`, retryable: true, code: 'TIMEOUT' });
    const parsed = parsePythonOutcome(outcome.resultText);
    if (!parsed) throw pythonExitError(outcome.exitCode, outcome.exitSignal, outcome.stderrTail);
    if (!parsed.ok) throw pythonExceptionError(parsed.error);
    return parsed.result;
  }
}
