import { toCallErrorInfo } from '@noetl/dsl';
import type { ClaimedCommand, ControlPlane, Holder } from '../control-plane/control-plane';
import { RuntimeError } from '../runtime-error';
import { eventErrorOf } from './call-errors';
import { renderChildCall, type WorkerRun } from './command-runner';

/** A `playbook` step: render the call, start the child, and let go (the child's end completes the command). */
export async function startChild(
  controlPlane: ControlPlane,
  command: ClaimedCommand,
  holder: Holder,
  run: WorkerRun,
  signal: AbortSignal,
): Promise<void> {
  const fail = (error: Parameters<typeof eventErrorOf>[0]): Promise<void> =>
    controlPlane.fail(command.command_id, { ...holder, error: run.secrets.scrub(eventErrorOf(error, command.step)) });
  let call: Awaited<ReturnType<typeof renderChildCall>>;
  try {
    call = await renderChildCall(command, run, signal);
  } catch (error) {
    await fail(toCallErrorInfo(error));
    return;
  }
  const { path, ...rest } = call;
  if (path === undefined) {
    await fail({ kind: 'internal', message: `playbook step ${command.step} needs a "path"`, retryable: false });
    return;
  }
  try {
    await controlPlane.startChild(command.command_id, { ...holder, path, ...rest });
  } catch (error) {
    // Past the nesting depth or the child count: the step fails, saying which limit, and nothing was started.
    if (error instanceof RuntimeError && error.code === 'limit_exceeded')
      await fail({ kind: 'limit', message: error.message, retryable: false });
    else throw error;
  }
}
