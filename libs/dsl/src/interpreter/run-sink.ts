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
 * Runs a per-iteration sink (DSL.md s3, s4) for one iteration result; a
 * failure fails the iteration. Tool form: its task runs (with its own
 * policies) against `scope` plus `result` = the iteration result. Table
 * form: one parameterised postgres INSERT (or upsert) of `args` rendered
 * (default: the iteration result) into `table`. Never throws.
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
    const built = tableSinkConfig(sink, scope, args.iterationResult, deps);
    if ('error' in built) return { status: 'error', error: built.error, records: [] };
    task = { name: TABLE_SINK_TASK, kind: 'postgres', config: {}, input: {}, policies: [], set: [] };
    firstConfig = built.config;
  }
  const run = await runPipeline(
    { tasks: [task], stepInput: {}, state: new RunState(scope), signal: args.signal, ...(firstConfig ? { firstConfig } : {}) },
    deps,
  );
  return run.status === 'ok' ? { status: 'ok', records: run.records } : run;
}

/** `{auth | connection, command, params}` of a table-form sink; the credential or DSN is rendered (it may be a template). */
function tableSinkConfig(
  sink: Extract<Sink, { kind: 'table' }>,
  scope: Record<string, unknown>,
  iterationResult: unknown,
  deps: InterpreterDeps,
): { config: Record<string, unknown> } | { error: CallErrorInfo } {
  try {
    const row = sink.args === undefined ? iterationResult : deps.engine.renderValue(sink.args, scope);
    const statement = tableSinkStatement(sink.table, row, sink.mode, sink.key);
    if (typeof statement === 'string') return { error: internalError(statement) };
    const config: Record<string, unknown> = { command: statement.command, params: statement.params };
    if (sink.auth !== undefined) config.auth = deps.engine.renderString(sink.auth, scope);
    if (sink.connection !== undefined) config.connection = deps.engine.renderString(sink.connection, scope);
    return { config };
  } catch (error) {
    return { error: toCallErrorInfo(error) };
  }
}
