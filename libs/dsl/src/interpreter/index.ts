// Runs one step's call in process (what a worker does for a command, and a
// frame per row): tool calls, sleeping, time and randomness are injected.
export { DEFAULT_MAX_TASK_RUNS, type CallRecord, type InterpreterDeps, type SinkResult, type StepCallResult } from './interpreter-deps';
export { toCallErrorInfo } from './call-errors';
export { runStepCall, type StepCallArgs } from './run-step-call';
export { runSink, type SinkArgs } from './run-sink';
export { runFrame, type FrameArgs, type FrameRunResult, type RowResult } from './run-frame';
export { tableSinkStatement, type TableSinkStatement } from './table-sink-statement';
