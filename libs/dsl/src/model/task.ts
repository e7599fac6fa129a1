import type { JsonObject } from './json';
import type { Policy } from './policy';
import type { SetOp } from './set-op';

export const TOOL_KINDS = ['http', 'postgres', 'javascript', 'python', 'playbook', 'workbook', 'noop', 'sleep', 'wait'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** A signal's name, as a `wait` tool names it and `POST /api/executions/{id}/signals/{name}` delivers it. */
export const SIGNAL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * A worker pool's name (`tool.pool`, `executor.spec.pool`, NOETL_WORKER_POOL):
 * it names NATS subjects and Kubernetes objects, so no dots, spaces or wildcards.
 */
export const POOL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

/**
 * One tool call: a single `tool:` or one entry of a pipeline (list-valued
 * `tool:`). Aliases are already resolved (`js` -> javascript, `endpoint` -> url,
 * `payload`/`json`/`data` -> body, `credential` -> auth, `args` -> input).
 */
export interface Task {
  /** The task name in a pipeline; the step name for a single tool. */
  name: string;
  kind: ToolKind;
  /** The kind's keys (url, method, params, query, command, code, path, ...), unrendered. */
  config: JsonObject;
  /** Input bindings, unrendered; merged over the step-level `input`. */
  input: JsonObject;
  /** `spec.policy.rules`, compiled. */
  policies: Policy[];
  /** Task-level `set:` (pipeline-local variables such as `fetch_result: "{{ output }}"`). */
  set: SetOp[];
}

/** A step's tool: one task, or a pipeline run in order on one worker as one command. */
export interface ToolSpec {
  tasks: Task[];
  /** True when `tool:` was a list: the step result is then pipeline-shaped (RESULT_SHAPES s1.6). */
  pipeline: boolean;
  /** `tool.pool` as a name: only workers of that pool run the step. */
  pool?: string;
}
