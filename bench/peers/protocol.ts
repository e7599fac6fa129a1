/**
 * What the harness (main.ts) and a system's child process say to each other.
 * The child gets its task as JSON in argv[2] and, in the run phase, answers
 * one RunReport over the IPC channel before it exits. The peers' children are
 * plain ES modules (systems/*.mjs: their packages live in bench/peers's own
 * node_modules, out of the runtime's typecheck); systems/kit.mjs is their
 * side of this contract.
 */
export type Workload =
  /** One execution of `steps` steps, each after the other. */
  | { kind: 'chain'; steps: number }
  /** `count` executions of a `steps`-step chain, all started at once. */
  | { kind: 'executions'; count: number; steps: number }
  /** One fan-out of `count` no-op items. */
  | { kind: 'items'; count: number };

export interface Task {
  /**
   * prepare: install the system's schema (and definitions) and exit; idle:
   * start the system as for a run and stop it, doing no work (what its start
   * and stop cost the database); run: start, do the workload once, timed, stop.
   */
  phase: 'prepare' | 'idle' | 'run';
  databaseUrl: string;
  workload: Workload;
  /** A system's named configuration (e.g. graphile-worker's local queue); absent for its default. */
  variant?: string;
}

export interface RunReport {
  /** The system's version as installed. */
  version: string;
  /** From the first work submitted to the last unit done; the system's start and stop are outside it. */
  wallMs: number;
  /** The child's peak resident set (process.resourceUsage().maxRSS, KiB) at its end. */
  maxRssKb: number;
  /** How the system ran the workload, for the report (e.g. `batches of 100`). */
  shape: string;
}

/** Steps (chain, executions) or items the workload does: the unit its per-unit figures divide by. */
export function unitsOf(workload: Workload): number {
  switch (workload.kind) {
    case 'chain':
      return workload.steps;
    case 'executions':
      return workload.count * workload.steps;
    case 'items':
      return workload.count;
  }
}
