import type { ExecutionDetail } from '@noetl/runtime';
import { MultiBar, Presets } from 'cli-progress';
import type { CliOutput } from './cli-output';
import { formatFinishedStep, newlyFinishedSteps, summariseProgress } from './execution-progress';

export interface WatchOptions {
  /** Print nothing while watching (`--json`: stdout carries only the final document). */
  quiet?: boolean;
  /** Stop watching after this long; default: no limit. */
  timeoutMs?: number;
  /** Stop watching when aborted (Ctrl-C). */
  signal?: AbortSignal;
  /** Default 100 ms. */
  intervalMs?: number;
}

export interface WatchEnd {
  /** The last state seen. */
  detail: ExecutionDetail;
  /** `terminal`: the execution ended; otherwise why the watch stopped first. */
  reason: 'terminal' | 'timeout' | 'interrupted';
}

/**
 * Polls `load` until the execution is terminal, showing progress: on a
 * terminal, a live bar (steps done / steps seen, the running steps and their
 * loops' `done/total`) under one line per finished step; otherwise just the
 * lines, so that logs and pipes stay readable.
 */
export async function watchExecution(
  load: () => Promise<ExecutionDetail>,
  output: CliOutput,
  options: WatchOptions = {},
): Promise<WatchEnd> {
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  const display = options.quiet ? undefined : startDisplay(output);
  const reported = new Set<string>();
  try {
    for (;;) {
      const detail = await load();
      display?.show(detail, reported);
      if (detail.status !== 'RUNNING') return { detail, reason: 'terminal' };
      if (options.signal?.aborted) return { detail, reason: 'interrupted' };
      if (Date.now() >= deadline) return { detail, reason: 'timeout' };
      await pause(options.intervalMs ?? 100, options.signal);
    }
  } finally {
    display?.stop();
  }
}

interface Display {
  show(detail: ExecutionDetail, reported: Set<string>): void;
  stop(): void;
}

function startDisplay(output: CliOutput): Display {
  if (!output.tty) {
    return {
      show: (detail, reported) => newlyFinishedSteps(detail, reported).forEach((step) => output.out(formatFinishedStep(step))),
      stop: () => undefined,
    };
  }
  const bars = new MultiBar(
    { stream: output.tty, format: '{bar} {value}/{total} steps | {current}', hideCursor: true, clearOnComplete: true },
    Presets.shades_classic,
  );
  const bar = bars.create(1, 0, { current: 'starting' });
  return {
    show: (detail, reported) => {
      for (const step of newlyFinishedSteps(detail, reported)) bars.log(`${formatFinishedStep(step)}\n`);
      const progress = summariseProgress(detail);
      bar.setTotal(Math.max(progress.seen, 1));
      bar.update(progress.done, { current: progress.current || '-' });
    },
    stop: () => bars.stop(),
  };
}

/** Waits `ms`, or less when the signal aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
