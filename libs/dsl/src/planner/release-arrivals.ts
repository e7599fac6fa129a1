import { liveWork, type ExecutionState } from '@noetl/event-kernel';
import { isLiveTimer } from './check-completion';
import { enterStep } from './enter-step';
import { failExecution } from './fail-step';
import type { PlanContext } from './plan-context';
import { canReach, reachability, type Reachability } from './reachability';

/** Step entries one decision may make before routing is declared a runaway cycle of routing steps. */
export const MAX_ENTRIES_PER_DECISION = 1000;

/**
 * Fan-in as an OR-join (DSL.md s2.1): a target T with pending arrivals is
 * entered, once, with all of them, only when nothing can still bring another
 * arrival to T: no running run (a retry or sleep timer's run, a loop's run
 * are running too) of a step that can reach T, and no other pending target P
 * that can reach T (unless T can reach P as well: a cycle, where waiting
 * would deadlock). So the join of an inclusive fan-out runs once, after
 * every branch. A loop-back arc (to an earlier step or to itself) is simply
 * a new activation. Repeats until nothing is releasable: an entered routing
 * step completes at once and may release more.
 */
export function releaseArrivals(ctx: PlanContext): void {
  const graph = reachability(ctx.playbook);
  for (let entries = 0; ctx.running; entries += 1) {
    const target = releasable(ctx.state, graph);
    if (target === undefined) return;
    if (entries >= MAX_ENTRIES_PER_DECISION) {
      failExecution(ctx, {
        kind: 'internal',
        message: `routing did not settle after ${MAX_ENTRIES_PER_DECISION} step entries in one decision (a cycle of steps without tools?)`,
        step: target,
      });
      return;
    }
    enterStep(ctx, target, [...(ctx.state.pending[target] ?? [])]);
  }
}

/** The first pending target (in arrival order) that nothing can still reach. */
export function releasable(state: ExecutionState, graph: Reachability): string | undefined {
  const targets = Object.keys(state.pending).filter((target) => (state.pending[target]?.length ?? 0) > 0);
  if (targets.length === 0) return undefined;
  const busy = busySteps(state);
  return targets.find(
    (target) =>
      ![...busy].some((step) => canReach(graph, step, target)) &&
      !targets.some((other) => other !== target && canReach(graph, other, target) && !canReach(graph, target, other)),
  );
}

/** Steps with a run still in progress: running, waiting on a timer, or looping. */
function busySteps(state: ExecutionState): Set<string> {
  const busy = new Set<string>();
  const live = liveWork(state);
  for (const runId of Object.keys(live.runs)) busy.add(state.runs[runId]!.step);
  for (const timerId of Object.keys(live.timers)) if (isLiveTimer(state, state.timers[timerId]!)) busy.add(state.timers[timerId]!.step);
  for (const loopId of Object.keys(live.loops)) busy.add(state.loops[loopId]!.step);
  return busy;
}
