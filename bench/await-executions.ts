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
  // Counted down as they end, not listed on each message: a list of the pending ones at every end made the harness's work quadratic.
  let started: ReadonlySet<string> | undefined;
  let pending = 0;
  let lastMessage = Date.now();
  let wake: (() => void) | undefined;
  const end = (id: string, status: string): void => {
    if (started?.has(id) && !ended.has(id)) pending--;
    ended.set(id, status);
  };
  const unsubscribe = engine.bus.subscribe(Subjects.finished(tenantId), (message) => {
    end(String(message['execution_id']), String(message['status']));
    lastMessage = Date.now();
    if (pending === 0) wake?.();
  });
  try {
    const ids = await start();
    started = new Set(ids);
    pending = ids.filter((id) => !ended.has(id)).length;
    const deadline = Date.now() + timeoutMs;
    while (pending > 0) {
      if (Date.now() > deadline) throw new Error(`${pending} executions still running after ${timeoutMs / 60_000} minutes`);
      if (Date.now() - lastMessage > QUIET_RECHECK_MS) {
        for (const id of ids.filter((id) => !ended.has(id))) {
          const { status } = await engine.own.executions.get(id);
          if (status !== 'RUNNING') end(id, status);
        }
        lastMessage = Date.now();
        if (pending === 0) break;
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
