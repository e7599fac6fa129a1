import { EventType } from '../../libs/event-kernel/src';
import type { Engine } from '../../libs/runtime/src';
import { waitFor } from './wait-for';

/** Starts an execution of `path` and waits for its first command to be issued (a spec that plays the worker claims it next). */
export async function startUntilIssued(engine: Engine, path: string): Promise<{ executionId: string; commandId: string }> {
  const { execution_id: executionId } = await engine.own.executions.start({ path });
  const commandId = await waitFor(async () => {
    const page = await engine.own.executions.events(executionId, { type: [EventType.CommandIssued] });
    return page.events[0]?.command_id ?? undefined;
  });
  return { executionId, commandId };
}
