import type { CallErrorInfo, Sink, Task } from '../model';
import { internalError, toCallErrorInfo } from './call-errors';
import type { CallRecord, InterpreterDeps, SinkResult } from './interpreter-deps';
import { runPipeline } from './run-pipeline';
import { extendScope, RunState } from './run-state';
import { tableSinkStatement } from './table-sink-statement';

export interface SinkArgs {
  iterationResult: unknown;
  scope: Record<string, unknown>;
  signal: AbortSignal;
}

/** The name a table-form sink's postgres call is recorded under. */
const TABLE_SINK_TASK = 'sink';

/**
 * Runs a per-iteration sink (DSL.md s3, s4) for one iteration result (a
 * loop iteration's, a frame's or a page's); a failure fails the iteration.
 * Tool form: its task runs (with its own policies) against `scope` plus
 * `result` = the iteration result. Table form: one postgres statement
 * (see tableSinkStatement) writing `args` rendered against the same scope,
 * else the iteration result: a mapping is one row, a list of mappings is
 * one row each (an empty list writes nothing). Never throws.
 */
export async function runSink(sink: Sink, args: SinkArgs, deps: InterpreterDeps): Promise<SinkResult> {
  const run = await runSinkRecorded(sink, args, deps);
  return run.status === 'ok' ? { status: 'ok' } : { status: 'error', error: run.error };
}

/** `runSink`, with the call records (a step's continuation reports its sink calls). */
export async function runSinkRecorded(
  sink: Sink,
  args: SinkArgs,
  deps: InterpreterDeps,
): Promise<{ status: 'ok'; records: CallRecord[] } | { status: 'error'; error: CallErrorInfo; records: CallRecord[] }> {
  const scope = extendScope(args.scope, { result: args.iterationResult });
  let task: Task;
  let firstConfig: Record<string, unknown> | undefined;
  if (sink.kind === 'task') {
    task = sink.task;
  } else {
    const built = await tableSinkConfig(sink, scope, args.iterationResult, deps);
    if ('error' in built) return { status: 'error', error: built.error, records: [] };
    if (built.config === undefined) return { status: 'ok', records: [] };
    task = { name: TABLE_SINK_TASK, kind: 'postgres', config: {}, input: {}, policies: [], set: [] };
    firstConfig = built.config;
  }
  const run = await runPipeline(
    { tasks: [task], stepInput: {}, state: new RunState(scope), signal: args.signal, ...(firstConfig ? { firstConfig } : {}) },
    deps,
  );
  return run.status === 'ok' ? { status: 'ok', records: run.records } : run;
}

/**
 * `{auth | connection, command, params}` of a table-form sink, undefined when
 * there are no rows; the credential or DSN is rendered (it may be a template).
 */
async function tableSinkConfig(
  sink: Extract<Sink, { kind: 'table' }>,
  scope: Record<string, unknown>,
  iterationResult: unknown,
  deps: InterpreterDeps,
): Promise<{ config: Record<string, unknown> | undefined } | { error: CallErrorInfo }> {
  try {
    const written = sink.args === undefined ? iterationResult : await deps.render.renderValue(sink.args, scope);
    const rows = Array.isArray(written) ? written : [written];
    if (rows.length === 0) return { config: undefined };
    const statement = tableSinkStatement(sink.table, rows, sink.mode, sink.key);
    if (typeof statement === 'string') return { error: internalError(statement) };
    const config: Record<string, unknown> = { command: statement.command, params: statement.params };
    if (sink.auth !== undefined) config.auth = await deps.render.renderString(sink.auth, scope);
    if (sink.connection !== undefined) config.connection = await deps.render.renderString(sink.connection, scope);
    return { config };
  } catch (error) {
    return { error: toCallErrorInfo(error) };
  }
}
