import { createHash } from 'node:crypto';

/**
 * The ids of the spans every process must agree on without asking each
 * other: an execution's trace and root span come from its id, a step run's
 * span from its run id. Any process that touches an execution (the api that
 * starts it, a scheduler that plans it, a worker that runs its commands)
 * joins the same trace, and the scheduler that sees a step end records the
 * span the worker's command spans were parented to.
 */
export function executionTraceId(executionId: string): string {
  return digest(`execution:${executionId}`, 32);
}

export function executionSpanId(executionId: string): string {
  return digest(`execution-span:${executionId}`, 16);
}

export function stepRunSpanId(runId: string): string {
  return digest(`step-run:${runId}`, 16);
}

/** `hexLength` hex digits of a sha256: ids that are random-looking, never all zero in practice, and the same in every process. */
function digest(text: string, hexLength: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, hexLength);
}
