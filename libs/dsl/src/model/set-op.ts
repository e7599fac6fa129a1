import type { Json } from './json';

/**
 * One `set:` entry. `ctx.<k>` is execution-wide and durable, `iter.<k>` lives
 * for one loop iteration, `step.<k>` writes into the step's result, and `local`
 * (a bare key on a pipeline task) lives for the rest of that pipeline run.
 */
export interface SetOp {
  scope: 'ctx' | 'iter' | 'step' | 'local';
  /** Key inside the scope; dotted for nested writes (`config.timeout`). */
  key: string;
  /** A template or a literal, rendered when applied. */
  value: Json;
}
