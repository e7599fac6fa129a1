import type { ExecutionState } from '@noetl/event-kernel';
import type { Playbook } from '../model';
import { stepResultView } from './step-result-view';

/** Which scope names are step results, and of which kind: what a scope sent as plain JSON needs to get its views back. */
export type ResultViews = Record<string, 'step' | 'loop'>;

/** The step results of the state, by name (a loop step's result is `loop`); only those in `only` when given. */
export function resultViewsOf(state: ExecutionState, playbook: Playbook, only?: ReadonlySet<string>): ResultViews {
  const loops = new Set(playbook.steps.filter((step) => step.loop !== undefined).map((step) => step.name));
  const views: ResultViews = {};
  const names = only ? [...only].filter((name) => Object.prototype.hasOwnProperty.call(state.results, name)) : Object.keys(state.results);
  for (const name of names) views[name] = loops.has(name) ? 'loop' : 'step';
  return views;
}

/**
 * A scope that crossed a process boundary as plain JSON (where the
 * `stepResultView` aliases `.data` / `.result` do not survive) with its step
 * results wrapped in their views again, as `buildScope` gives them.
 */
export function withResultViews(scope: Record<string, unknown>, views: ResultViews): Record<string, unknown> {
  const out: Record<string, unknown> = { ...scope };
  for (const [name, kind] of Object.entries(views)) {
    if (Object.prototype.hasOwnProperty.call(scope, name)) out[name] = stepResultView(scope[name], { loop: kind === 'loop' });
  }
  return out;
}
