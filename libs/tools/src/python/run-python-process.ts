import { type ChildProcess, spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { OutputStream } from '../tool';
import { killDescendants } from './kill-process-tree';
import type { SandboxUser } from './sandbox-user';

export interface PythonProcessOptions {
  binary: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Run as this user (the worker must be root); absent: as the worker's own user. */
  user?: SandboxUser;
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

/** After exit, how long to wait for pipes a process outside the group may still hold open. */
const PIPE_GRACE_MS = 1_000;

/**
 * Runs the interpreter (no shell) in a session and process group of its own, feeds stdin,
 * collects fd 3, streams stdout/stderr to `onOutput`. The step ends when fd 3 ends (the
 * bootstrap then waits to be killed), the process exits, the timeout passes or the signal
 * aborts; then everything it started goes: its descendants while it still lives to hold the
 * orphans (it is their subreaper), the process group, and the process. Never rejects.
 */
export function runPythonProcess(options: PythonProcessOptions): Promise<PythonProcessResult> {
  return new Promise((resolve) => {
    const result: PythonProcessResult = {
      resultText: '',
      stderrTail: '',
      exitCode: null,
      exitSignal: null,
      timedOut: false,
      cancelled: false,
    };
    let child: ChildProcess;
    try {
      child = spawn(options.binary, options.args, {
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        env: options.env,
        cwd: options.cwd,
        detached: true,
        windowsHide: true,
        ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
      });
    } catch (err) {
      resolve({ ...result, spawnError: err as NodeJS.ErrnoException });
      return;
    }

    const resultChunks: Buffer[] = [];
    const tailLimit = options.stderrTailBytes ?? 8 * 1024;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let ending: Promise<void> | undefined;

    const end = (): Promise<void> => (ending ??= endAll(child));
    const timer = setTimeout(() => {
      result.timedOut = true;
      void end();
    }, options.timeoutMs);
    const onAbort = (): void => {
      result.cancelled = true;
      void end();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal.removeEventListener('abort', onAbort);
      result.resultText = Buffer.concat(resultChunks).toString('utf8');
      // Whatever way it ended, nothing it started outlives the step.
      void end().then(() => resolve(result));
    };

    const resultStream = child.stdio[3];
    if (resultStream instanceof Readable) {
      resultStream.on('data', (chunk: Buffer) => resultChunks.push(chunk));
      resultStream.on('end', () => void end());
    }
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
      void end();
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

/** Descendants first (the process still holds the orphans), then the process group, then the process. */
async function endAll(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  if (running()) await killDescendants(pid);
  // An exited process's pid may be reused: only its group (which outlives it while members remain) is still ours.
  for (const target of running() ? [-pid, pid] : [-pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

/** A line longer than this is passed on in pieces. */
const MAX_LINE_CHARS = 64 * 1024;

/**
 * Passes output on in whole lines, whatever the pipe's chunks: unbuffered python writes a
 * `print`'s parts separately, and a reader redacting secrets must see each value whole.
 */
function forward(
  stream: Readable | null,
  name: OutputStream,
  onOutput: PythonProcessOptions['onOutput'],
  keep?: (text: string) => void,
): void {
  if (!stream) return;
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const emit = (text: string): void => {
    if (text === '') return;
    keep?.(text);
    onOutput?.(name, text);
  };
  stream.on('data', (chunk: Buffer) => {
    pending += decoder.write(chunk);
    const end = pending.lastIndexOf('\n') + 1;
    if (end > 0) {
      for (const line of pending.slice(0, end).split(/(?<=\n)/)) emit(line);
      pending = pending.slice(end);
    }
    if (pending.length > MAX_LINE_CHARS) {
      emit(pending);
      pending = '';
    }
  });
  stream.on('end', () => emit(pending + decoder.end()));
}
