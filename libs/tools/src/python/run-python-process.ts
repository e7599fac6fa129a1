import { type ChildProcess, spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { OutputStream } from '../tool';

export interface PythonProcessOptions {
  binary: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput?: (stream: OutputStream, text: string) => void;
  /** How much of stderr to keep for error messages (default 8 KiB). */
  stderrTailBytes?: number;
}

export interface PythonProcessResult {
  /** What the program wrote on fd 3. */
  resultText: string;
  stderrTail: string;
  exitCode: number | null;
  exitSignal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  spawnError?: NodeJS.ErrnoException;
}

/** After exit, how long to wait for pipes a grandchild may still hold open. */
const PIPE_GRACE_MS = 1_000;

/**
 * Runs the interpreter (no shell) in its own process group, feeds stdin, collects fd 3, streams
 * stdout/stderr to `onOutput`, and kills the whole group on timeout or abort. Never rejects.
 */
export function runPythonProcess(options: PythonProcessOptions): Promise<PythonProcessResult> {
  return new Promise((resolve) => {
    const result: PythonProcessResult = { resultText: '', stderrTail: '', exitCode: null, exitSignal: null, timedOut: false, cancelled: false };
    let child: ChildProcess;
    try {
      child = spawn(options.binary, options.args, {
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        env: options.env,
        cwd: options.cwd,
        detached: true,
        windowsHide: true,
      });
    } catch (err) {
      resolve({ ...result, spawnError: err as NodeJS.ErrnoException });
      return;
    }

    const resultChunks: Buffer[] = [];
    const tailLimit = options.stderrTailBytes ?? 8 * 1024;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const kill = (): void => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = (): void => {
      result.cancelled = true;
      kill();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal.removeEventListener('abort', onAbort);
      result.resultText = Buffer.concat(resultChunks).toString('utf8');
      resolve(result);
    };

    const resultStream = child.stdio[3];
    if (resultStream instanceof Readable) resultStream.on('data', (chunk: Buffer) => resultChunks.push(chunk));
    forward(child.stdout, 'stdout', options.onOutput);
    forward(child.stderr, 'stderr', options.onOutput, (text) => {
      result.stderrTail = (result.stderrTail + text).slice(-tailLimit);
    });
    child.stdin?.on('error', () => undefined); // EPIPE when the program exits before reading everything
    child.stdin?.end(options.stdin);

    child.on('error', (err: NodeJS.ErrnoException) => {
      if (child.pid === undefined) {
        result.spawnError = err;
        finish();
      }
    });
    child.on('exit', (code, signal) => {
      result.exitCode = code;
      result.exitSignal = signal;
      graceTimer = setTimeout(() => {
        for (const stream of child.stdio) stream?.destroy();
        finish();
      }, PIPE_GRACE_MS);
    });
    child.on('close', (code, signal) => {
      result.exitCode ??= code;
      result.exitSignal ??= signal;
      finish();
    });
  });
}

function forward(
  stream: Readable | null,
  name: OutputStream,
  onOutput: PythonProcessOptions['onOutput'],
  keep?: (text: string) => void,
): void {
  if (!stream) return;
  const decoder = new StringDecoder('utf8');
  stream.on('data', (chunk: Buffer) => {
    const text = decoder.write(chunk);
    if (text === '') return;
    keep?.(text);
    onOutput?.(name, text);
  });
}
