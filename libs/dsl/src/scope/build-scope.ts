import type { ExecutionState, Json, PayloadRef } from '@noetl/event-kernel';
import type { Playbook } from '../model';
import { stepResultView } from './step-result-view';

export interface BuildScopeArgs {
  state: ExecutionState;
  playbook: Playbook;
  /** Reads a payload-store value (a step result stored by reference). */
  resolve: (ref: PayloadRef) => Json;
  /** Names of the moment: `event`, `fanin`, `output`, `iter`, `loop`, `input`, ... */
  extra?: Record<string, unknown>;
  /**
   * Only these bare names (workload and ctx keys, step results) are laid in;
   * `workload`, `ctx`, `vars`, `extra` and the reserved names always are.
   * What a piece of work's templates read (`scopeNamesOf`): its scope then
   * costs what it reads, not what the execution has done so far.
   */
  only?: ReadonlySet<string>;
}

/** Names a workload, a ctx key, a step or `extra` can never replace (RESULT_SHAPES §1.8). */
export const RESERVED_SCOPE_NAMES = ['execution_id', 'parent_execution_id', 'catalog_id', 'job'] as const;

const loopStepsByPlaybook = new WeakMap<Playbook, ReadonlySet<string>>();

function loopSteps(playbook: Playbook): ReadonlySet<string> {
  let steps = loopStepsByPlaybook.get(playbook);
  if (!steps) {
    steps = new Set(playbook.steps.filter((step) => step.loop !== undefined).map((step) => step.name));
    loopStepsByPlaybook.set(playbook, steps);
  }
  return steps;
}

function define(scope: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(scope, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The own entries of `record`, or only those named in `only` (looked up, not scanned). */
function entriesOf<T>(record: Record<string, T>, only: ReadonlySet<string> | undefined): [string, T][] {
  if (!only) return Object.entries(record);
  const entries: [string, T][] = [];
  for (const name of only) if (Object.prototype.hasOwnProperty.call(record, name)) entries.push([name, record[name]!]);
  return entries;
}

/**
 * The render scope of DSL.md §6, built from the execution state. Later
 * layers win: bare workload keys, bare ctx keys (RESULT_SHAPES §8: `ctx.x`
 * is also `{{ x }}`), every completed step's latest result under its name
 * (a `stepResultView`, read lazily so a result by reference is resolved
 * only when a template reads it), `workload`, `ctx` and its alias `vars`,
 * then `extra`, then the reserved identifiers `execution_id`,
 * `parent_execution_id` (null without a parent), `catalog_id` and
 * `job: {uuid, execution_id, id}`.
 */
export function buildScope(args: BuildScopeArgs): Record<string, unknown> {
  const { state, playbook, resolve, extra, only } = args;
  const scope: Record<string, unknown> = {};
  for (const [key, value] of entriesOf(state.workload, only)) define(scope, key, value);
  for (const [key, value] of entriesOf(state.ctx, only)) define(scope, key, value);
  const loops = loopSteps(playbook);
  for (const [name, stored] of entriesOf(state.results, only)) {
    let view: { value: unknown } | undefined;
    Object.defineProperty(scope, name, {
      get: () => {
        view ??= {
          value: stepResultView(stored.ref ? resolve(stored.ref) : (stored.value ?? null), { loop: loops.has(name) }),
        };
        return view.value;
      },
      enumerable: true,
      configurable: true,
    });
  }
  define(scope, 'workload', state.workload);
  define(scope, 'ctx', state.ctx);
  define(scope, 'vars', state.ctx);
  for (const [key, value] of Object.entries(extra ?? {})) define(scope, key, value);
  define(scope, 'execution_id', state.executionId);
  define(scope, 'parent_execution_id', state.parentExecutionId);
  define(scope, 'catalog_id', state.catalogId);
  define(scope, 'job', { uuid: state.executionId, execution_id: state.executionId, id: state.executionId });
  return scope;
}
