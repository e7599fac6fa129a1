/**
 * The keys the parser accepts where unknown keys are errors (DSL.md s1:
 * "Unknown keys inside `metadata` and `spec` are allowed; elsewhere they are
 * errors"). Built from DSL.md plus what the NoETL fixtures use.
 *
 * Not listed here, and open by design:
 * - `metadata`, `workload`, any `spec` mapping (their extra keys are ignored);
 * - tool tasks: a tool may carry keys it ignores (`output`, `task`,
 *   `assert`, ...), so only the required keys of its kind are checked;
 * - keychain entries: kept as written.
 */
export const TOP_KEYS = keys('apiVersion', 'kind', 'metadata', 'workload', 'keychain', 'workbook', 'executor', 'workflow');

/** `profile` and `version` appear in NoETL's canonical v10 executor block. */
export const EXECUTOR_KEYS = keys('spec', 'profile', 'version');

/**
 * `description` (alias of `desc`), `args` (alias of `input`), `output`
 * (`output_select`, three fixtures), `spec` (v10 step knobs, ignored) and
 * `vars` (legacy: bare keys become `ctx` writes).
 */
export const STEP_KEYS = keys(
  'step',
  'desc',
  'description',
  'input',
  'args',
  'tool',
  'loop',
  'retry',
  'set',
  'next',
  'sink',
  'output',
  'spec',
  'vars',
);

/** Keys of a task that are not tool configuration (`pool`: the worker pool, or NoETL's connection-pool options, ignored). */
export const TASK_STRUCTURE_KEYS = keys('kind', 'name', 'input', 'args', 'set', 'spec', 'pool');

export const NEXT_KEYS = keys('spec', 'arcs');
export const ARC_KEYS = keys('step', 'when', 'set', 'on');

export const LOOP_KEYS = keys('in', 'collection', 'iterator', 'element', 'mode', 'concurrency', 'max_in_flight', 'spec', 'cursor', 'sink');
export const FRAME_KEYS = keys(
  'max_rows',
  'max_seconds',
  'max_bytes',
  'lease_seconds',
  'heartbeat_seconds',
  'process',
  'max_attempts',
  'row_concurrency',
);
export const FANOUT_KEYS = keys('max_shard_retries');
export const CURSOR_KEYS = keys('kind', 'auth', 'credential', 'connection', 'claim');

/** Keys of the table form beside its kind (`tool: postgres`, or `kind: postgres` inside `tool:`). */
export const SINK_TABLE_KEYS = keys('auth', 'credential', 'connection', 'table', 'args', 'mode', 'key');
export const SINK_TASK_KEYS = keys('tool');

export const WORKBOOK_ENTRY_KEYS = keys('name', 'tool', 'assert', 'desc', 'description');

/** Keys of some tool kind: a step (in the mapping `tool:` form) holding one gets a hint. */
export const TOOL_CONFIG_KEYS = keys(
  'url',
  'endpoint',
  'method',
  'params',
  'headers',
  'body',
  'payload',
  'json',
  'data',
  'timeout',
  'auth',
  'credential',
  'connection',
  'query',
  'command',
  'commands',
  'transaction',
  'code',
  'script',
  'libs',
  'path',
  'version',
  'return_step',
  'seconds',
  'until',
  'pool',
  'output_select',
);

function keys(...names: string[]): ReadonlySet<string> {
  return new Set(names);
}
