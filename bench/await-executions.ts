import { Subjects, type Engine } from '@noetl/runtime';

/** Re-read the executions still running when no `finished` message came for this long (one missed would stall the wait). */
const QUIET_RECHECK_MS = 5000;

/**
 * Resolves once every execution `start` starts has ended, rejecting if one
 * did not complete. It listens to the bus's `finished` messages, subscribed
 * before the first start, rather than a waitForTerminal per execution: a
 * thousand of those re-read their executions every 500 ms, a load of the
 * harness's own that starves the engine it measures.
 */
export async function startAndAwait(engine: Engine, tenantId: string, timeoutMs: number, start: () => Promise<string[]>): Promise<void> {
  const ended = new Map<string, string>();
  let lastMessage = Date.now();
  let wake: (() => void) | undefined;
  const unsubscribe = engine.bus.subscribe(Subjects.finished(tenantId), (message) => {
    ended.set(String(message['execution_id']), String(message['status']));
    lastMessage = Date.now();
    wake?.();
  });
  try {
    const ids = await start();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pending = ids.filter((id) => !ended.has(id));
      if (pending.length === 0) break;
      if (Date.now() > deadline) throw new Error(`${pending.length} executions still running after ${timeoutMs / 60_000} minutes`);
      if (Date.now() - lastMessage > QUIET_RECHECK_MS) {
        for (const id of pending) {
          const { status } = await engine.own.executions.get(id);
          if (status !== 'RUNNING') ended.set(id, status);
        }
        lastMessage = Date.now();
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, QUIET_RECHECK_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const failed = ids.find((id) => ended.get(id) !== 'COMPLETED');
    if (failed) throw new Error(`execution ${failed} ended ${ended.get(failed)}`);
  } finally {
    unsubscribe();
  }
}
