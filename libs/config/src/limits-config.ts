import { integer, type Env } from './env-values';

/** How much work one playbook may set off (issue 15 defect 8): a step that would pass a limit fails, saying which. */
export interface LimitsConfig {
  /** Sub-playbook nesting: a child this deep below its root execution is refused (a playbook calling itself). */
  playbookDepth: number;
  /** Child executions one execution may start, over its whole life. */
  childExecutions: number;
  /** Items one loop may iterate. */
  loopItems: number;
  /** Items one `range()` of a template may produce (a loop over `range(n)` is capped by it before NOETL_MAX_LOOP_ITEMS). */
  rangeItems: number;
  /**
   * Bytes of a request body a user sends with an execution's, a signal's or a schedule's
   * payload: one larger is refused (413) before it is parsed, and nothing is written.
   */
  inputBytes: number;
}

export function limits(env: Env): LimitsConfig {
  return {
    playbookDepth: integer(env, 'NOETL_MAX_PLAYBOOK_DEPTH', 32, 1, 1000),
    childExecutions: integer(env, 'NOETL_MAX_CHILD_EXECUTIONS', 10_000, 1, 10_000_000),
    loopItems: integer(env, 'NOETL_MAX_LOOP_ITEMS', 1_000_000, 1, 100_000_000),
    inputBytes: integer(env, 'NOETL_MAX_INPUT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    rangeItems: integer(env, 'NOETL_MAX_RANGE_ITEMS', 100_000, 1, 100_000_000),
  };
}
