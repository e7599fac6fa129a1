import type { ExecutionDetail } from '@noetl/runtime';
import type { CliOutput } from './cli-output';
import { formatExecutionError, formatFinishedStep, formatOutcome } from './execution-progress';

export interface PrintOptions {
  /** The whole detail as JSON on stdout, and nothing else there. */
  json?: boolean;
  /** Also list every step run (`status` does; `run` showed them live). */
  steps?: boolean;
}

/**
 * Prints an execution: its outcome line, the result as pretty JSON, and the
 * error on stderr. Returns the exit code: 0 when it completed, 1 otherwise.
 */
export function printExecution(detail: ExecutionDetail, output: CliOutput, options: PrintOptions = {}): number {
  const error = formatExecutionError(detail);
  if (options.json) {
    output.out(JSON.stringify(detail, null, 2));
  } else {
    output.out(formatOutcome(detail));
    if (options.steps) {
      for (const step of detail.steps) output.out(step.status === 'RUNNING' ? `… ${step.step} running` : formatFinishedStep(step));
      for (const loop of detail.loops) output.out(`  loop ${loop.step}: ${loop.done}/${loop.total ?? '?'} done, ${loop.failed} failed${loop.completed ? '' : ' (open)'}`);
    }
    if (detail.status === 'COMPLETED' || detail.result !== null) output.out(JSON.stringify(detail.result, null, 2));
  }
  if (error) output.err(error);
  return detail.status === 'COMPLETED' ? 0 : 1;
}
