import type { ExecutionDetail } from '@noetl/runtime';
import type { CliOutput } from './cli-output';
import { formatExecutionError, formatFinishedStep, formatOutcome, isUnfinished } from './execution-progress';
import { type OutputOptions, printItem } from './output-format';

export interface PrintOptions extends OutputOptions {
  /** Also list every step run (`status` does; `run` showed them live). */
  steps?: boolean;
}

/**
 * Prints an execution: its outcome line, the result as pretty JSON, and the
 * error on stderr; or its id (--quiet), or the whole detail as JSON/YAML and
 * nothing else on stdout. Returns the exit code: 0 when it completed, 1 otherwise.
 */
export async function printExecution(detail: ExecutionDetail, output: CliOutput, options: PrintOptions = {}): Promise<number> {
  const error = formatExecutionError(detail);
  await printItem(detail, detail.execution_id, options, output, () => {
    output.out(formatOutcome(detail));
    if (options.steps) {
      const origin = detail.rerun_of;
      if (origin)
        output.out(`  rerun of ${origin.execution_id} ${origin.from_step === null ? 'from the start' : `from step ${origin.from_step}`}`);
      if (detail.reruns.length > 0) output.out(`  re-run as ${detail.reruns.join(', ')}`);
      for (const step of detail.steps)
        output.out(isUnfinished(step) ? `… ${step.step} ${step.status.toLowerCase()}` : formatFinishedStep(step));
      for (const loop of detail.loops)
        output.out(`  loop ${loop.step}: ${loop.done}/${loop.total ?? '?'} done, ${loop.failed} failed${loop.completed ? '' : ' (open)'}`);
    }
    if (detail.status === 'COMPLETED' || detail.result !== null) output.out(JSON.stringify(detail.result, null, 2));
  });
  if (error) output.err(error);
  return detail.status === 'COMPLETED' ? 0 : 1;
}
