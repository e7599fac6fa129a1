import type { JsonObject, Playbook, Step } from '../model';

/** The worker pool a step's work goes to: its own (`tool.pool`), else the playbook's (`executor.spec.pool`); undefined: no pool. */
export function stepPool(playbook: Playbook, step: Step): string | undefined {
  return step.pool ?? playbook.executor.pool;
}

/**
 * The pool a command's or loop body's spec was issued to (`spec.pool`), or
 * null: work without a pool, which only workers without one take.
 */
export function workPool(spec: JsonObject): string | null {
  const pool = spec['pool'];
  return typeof pool === 'string' ? pool : null;
}
