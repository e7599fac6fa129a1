import type { ExecutionState } from './execution-state';

/** What an execution has in progress: the ids of its running runs, unfired timers and running loops. */
export interface LiveWork {
  runs: Record<string, true>;
  timers: Record<string, true>;
  loops: Record<string, true>;
}

const LIVE = Symbol('noetl.liveWork');

type Indexed = ExecutionState & { [LIVE]?: LiveWork };

/**
 * The execution's live work, kept beside its state by `applyEvent` so that
 * the planner's questions ("is anything still running?", "which steps are
 * busy?") cost what is live, not every run the execution ever had. It is an
 * index of the state, not part of it: a symbol key that JSON, checksums and
 * copies leave out, built from the state the first time a state without it
 * (one read back from JSON) is asked.
 */
export function liveWork(state: ExecutionState): Readonly<LiveWork> {
  const indexed = state as Indexed;
  let live = indexed[LIVE];
  if (!live) {
    live = { runs: {}, timers: {}, loops: {} };
    for (const run of Object.values(state.runs)) if (run.status === 'RUNNING') live.runs[run.runId] = true;
    for (const timer of Object.values(state.timers)) if (!timer.fired) live.timers[timer.timerId] = true;
    for (const loop of Object.values(state.loops)) if (loop.status === 'RUNNING') live.loops[loop.loopId] = true;
    Object.defineProperty(state, LIVE, { value: live, writable: true, configurable: true, enumerable: false });
  }
  return live;
}

/** The reducer's note that `id` started (true) or stopped being live; a state without its index yet is left to build it when asked. */
export function noteLive(state: ExecutionState, kind: keyof LiveWork, id: string, live: boolean): void {
  const index = (state as Indexed)[LIVE];
  if (!index) return;
  if (live) index[kind][id] = true;
  else delete index[kind][id];
}
