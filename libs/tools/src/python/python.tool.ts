import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallError } from '@noetl/dsl';
import type { Tool, ToolContext } from '../tool';
import { cappedTimeout } from '../shared/read-config';
import { cancelledError, errorMessage, throwIfAborted } from '../shared/tool-errors';
import { ledgerExposedError } from './ledger-exposure';
import { buildPythonRequest, type PythonLimits, pythonArgs, pythonEnv, serializePythonRequest } from './build-python-request';
import { PYTHON_DISABLED, PYTHON_NOT_FOUND, parsePythonOutcome, pythonExceptionError, pythonExitError } from './python-outcome';
import { runPythonProcess } from './run-python-process';
import { type SandboxUser, sandboxUser } from './sandbox-user';

export interface PythonToolOptions {
  /** The interpreter (default `python3`, looked up on PATH). */
  pythonBinary?: string;
  /** The interpreter's environment (default: `pythonEnv(process.env)`, a safe subset); HOME, TMPDIR, USER and LOGNAME are set per call. */
  env?: Record<string, string>;
  /** Where each call's private working directory is made (default the OS temp dir). */
  workRoot?: string;
  /** Timeout when the config has none, in seconds (default 300). */
  defaultTimeoutSeconds?: number;
  /** Ceiling of any `timeout`, in seconds (default 3600): a larger one is capped, and the timeout message says so. */
  maxTimeoutSeconds?: number;
  /**
   * The user a step runs as when the worker runs as root: a name, a uid or `uid:gid` (default
   * `nobody`). Ignored otherwise: an unprivileged worker cannot switch users.
   */
  user?: string;
  /**
   * Why python steps are refused on this worker, when they are: its ledger's cluster takes a
   * login without a password from this host (`ledgerExposureReason`). Every step then fails
   * with kind `auth`, code `LEDGER_EXPOSED`, before anything runs.
   */
  refusedBecause?: string;
  limits?: {
    /** RLIMIT_AS (default 1 GiB). */
    addressSpaceBytes?: number;
    /** RLIMIT_NOFILE (default 256). */
    openFiles?: number;
    /** RLIMIT_NPROC of the sandbox user, system-wide (default 256); not set when the step runs as the worker's own user. */
    processes?: number;
    /** RLIMIT_FSIZE (default 256 MiB): the largest file a step may write, in its working directory or anywhere else. */
    fileBytes?: number;
  };
}

const GiB = 1024 * 1024 * 1024;

/**
 * `kind: python`: runs `python3` in a subprocess per call (no shell) with the bootstrap in
 * `python-bootstrap.ts`; the result comes back on fd 3 as JSON, user output goes to
 * `ctx.onOutput`. Isolation (README "Python steps"): as root, the step runs as an unprivileged
 * user, so it can read neither the worker's environment (/proc/<ppid>/environ) nor its files;
 * always, with a clean environment, a private working directory, rlimits (CPU seconds from the
 * timeout, address space, open files, processes) and in a process group of its own; when the
 * step ends, times out or is cancelled, everything it started is killed.
 */
export class PythonTool implements Tool {
  readonly kind = 'python';
  private readonly env: Record<string, string>;
  private user?: { resolved: SandboxUser | undefined };

  constructor(private readonly options: PythonToolOptions = {}) {
    this.env = options.env ?? pythonEnv(process.env);
  }

  async run(config: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    if (!ctx.pythonEnabled) throw new CallError({ kind: 'internal', message: PYTHON_DISABLED, retryable: false, code: 'PYTHON_DISABLED' });
    if (this.options.refusedBecause !== undefined) throw ledgerExposedError(this.options.refusedBecause);
    throwIfAborted(ctx.signal, 'python');
    const { timeoutMs, timeoutText } = cappedTimeout(
      'python',
      config,
      this.options.defaultTimeoutSeconds ?? 300,
      this.options.maxTimeoutSeconds ?? 3600,
    );
    const user = this.sandboxUser();
    const limits = this.limitsFor(timeoutMs, user);
    const stdin = serializePythonRequest(buildPythonRequest(config, ctx.scope, limits));
    const binary = this.options.pythonBinary ?? 'python3';
    const workDir = await this.makeWorkDir(user);
    try {
      const outcome = await runPythonProcess({
        binary,
        args: pythonArgs(),
        env: { ...this.env, HOME: workDir, TMPDIR: workDir, ...(user ? { USER: user.name, LOGNAME: user.name } : {}) },
        cwd: workDir,
        stdin,
        timeoutMs,
        signal: ctx.signal,
        ...(user ? { user } : {}),
        ...(ctx.onOutput ? { onOutput: (stream, text) => ctx.onOutput?.(stream, text) } : {}),
      });
      if (outcome.spawnError) {
        if (outcome.spawnError.code === 'ENOENT')
          throw new CallError({ kind: 'internal', message: PYTHON_NOT_FOUND, retryable: false, code: 'PYTHON_NOT_FOUND' });
        throw new CallError({
          kind: 'internal',
          message: `python: cannot start ${binary}: ${outcome.spawnError.message}`,
          retryable: false,
          code: outcome.spawnError.code ?? 'SPAWN_FAILED',
        });
      }
      if (outcome.cancelled) throw cancelledError('python');
      if (outcome.timedOut)
        throw new CallError({ kind: 'timeout', message: `python: timed out after ${timeoutText}`, retryable: true, code: 'TIMEOUT' });
      const parsed = parsePythonOutcome(outcome.resultText);
      if (!parsed) throw pythonExitError(outcome.exitCode, outcome.exitSignal, outcome.stderrTail, limits);
      if (!parsed.ok) throw pythonExceptionError(parsed.error);
      return parsed.result;
    } finally {
      await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** The user to switch to: only as root, and never root itself. */
  private sandboxUser(): SandboxUser | undefined {
    if (process.getuid?.() !== 0) return undefined;
    const spec = this.options.user ?? 'nobody';
    this.user ??= { resolved: sandboxUser(spec) };
    const resolved = this.user.resolved;
    if (!resolved) {
      throw new CallError({
        kind: 'internal',
        message: `python: the sandbox user "${spec}" does not exist (NOETL_PYTHON_USER)`,
        retryable: false,
        code: 'PYTHON_USER_UNKNOWN',
      });
    }
    return resolved.uid === 0 ? undefined : resolved;
  }

  private limitsFor(timeoutMs: number, user: SandboxUser | undefined): PythonLimits {
    const limits = this.options.limits ?? {};
    return {
      // CPU time never exceeds wall time for one thread: the timeout bounds it, this bounds what the group burns in parallel.
      cpu_seconds: Math.ceil(timeoutMs / 1000) + 1,
      address_space_bytes: limits.addressSpaceBytes ?? GiB,
      open_files: limits.openFiles ?? 256,
      file_bytes: limits.fileBytes ?? 256 * 1024 * 1024,
      ...(user ? { processes: limits.processes ?? 256 } : {}),
    };
  }

  /** A private, empty directory (mode 0700, owned by the step's user): its cwd, HOME and TMPDIR, removed afterwards. */
  private async makeWorkDir(user: SandboxUser | undefined): Promise<string> {
    try {
      const dir = await mkdtemp(join(this.options.workRoot ?? tmpdir(), 'noetl-python-'));
      if (user) await chown(dir, user.uid, user.gid);
      return dir;
    } catch (err) {
      throw new CallError({
        kind: 'internal',
        message: `python: cannot make a working directory: ${errorMessage(err)}`,
        retryable: true,
        code: 'WORKDIR_FAILED',
      });
    }
  }
}
