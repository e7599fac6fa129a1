import { CallError, isJsonObject, toPlainJson } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';
import type { ControlPlane, NestedChildRequest } from '../control-plane/control-plane';
import { RuntimeError } from '../runtime-error';

const POLL_MS = 250;

/**
 * A `playbook` call inside a pipeline or a loop body (DSL.md s3): the worker
 * holds its lease and heartbeats while the child runs, so it starts the child
 * and waits for its outcome (`childOutcome`), up to the call's `timeout`
 * seconds. A step whose whole tool is `playbook` does not come here: its
 * command is handed over to the child durably.
 */
export async function runNestedChild(
  controlPlane: ControlPlane,
  holder: Pick<NestedChildRequest, 'worker_id' | 'lease_token' | 'holder' | 'key'>,
  config: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const path = config['path'];
  if (typeof path !== 'string' || path === '')
    throw new CallError({ kind: 'internal', message: 'a playbook call needs a "path"', retryable: false });
  const payload = toPlainJson(config['input'] ?? config['payload'] ?? {});
  const returnStep = typeof config['return_step'] === 'string' ? config['return_step'] : undefined;
  const timeoutSeconds = Number(config['timeout']);
  const deadline = Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? Date.now() + timeoutSeconds * 1000 : Infinity;
  const { execution_id: childId } = await controlPlane
    .startNestedChild({
      ...holder,
      path,
      ...(typeof config['version'] === 'number' ? { version: config['version'] } : {}),
      payload: (isJsonObject(payload) ? payload : {}) as JsonObject,
    })
    .catch((error: unknown) => {
      // Past the nesting depth or the child count: the call fails, saying which limit.
      if (error instanceof RuntimeError && error.code === 'limit_exceeded')
        throw new CallError({ kind: 'limit', message: error.message, retryable: false });
      throw error;
    });
  for (;;) {
    const outcome = await controlPlane.childOutcome(childId, {
      worker_id: holder.worker_id,
      lease_token: holder.lease_token,
      holder: holder.holder,
      ...(returnStep !== undefined ? { return_step: returnStep } : {}),
    });
    if (outcome.status === 'COMPLETED') return outcome.result;
    if (outcome.status === 'FAILED') {
      throw new CallError({
        kind: 'internal',
        message: outcome.error.message,
        retryable: outcome.error.retryable ?? false,
        code: 'CHILD_FAILED',
      });
    }
    if (signal.aborted)
      throw new CallError({ kind: 'cancelled', message: `cancelled while child execution ${childId} ran`, retryable: false });
    if (Date.now() >= deadline) {
      throw new CallError({
        kind: 'timeout',
        message: `child execution ${childId} (${path}) did not end within ${timeoutSeconds} s`,
        retryable: false,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
