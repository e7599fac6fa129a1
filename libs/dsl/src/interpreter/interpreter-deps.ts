import type { Renderer } from '../render';
import type { CallErrorInfo, ToolKind } from '../model';

/** Default bound on task runs in one pipeline run (jump loops). */
export const DEFAULT_MAX_TASK_RUNS = 10_000;

/** What the interpreter needs from the outside world: tools, time and randomness are injected. */
export interface InterpreterDeps {
  /** Renders templates, moving one too heavy for the event loop to a render thread (issue 25 item 7). */
  render: Renderer;
  /** Runs one tool call with a RENDERED config; resolves to the raw result or rejects with CallError. */
  callTool(kind: ToolKind, config: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  random(): number;
  /** For durations. */
  monotonicMs(): number;
  /**
   * Lets the process's other work run (its I/O callbacks and timers). A frame
   * whose rows never wait (a no-op tool, a template) would otherwise run
   * every row in one turn of the event loop, holding back the claims,
   * commits and heartbeats of the frames beside it. Absent: never yields.
   */
  yieldTurn?(): Promise<void>;
  /** Bound on task runs in one pipeline run (jump loops); default 10000. */
  maxTaskRuns?: number;
}

/** One run of one task: its attempts and how long it took, backoff waits included. */
export interface CallRecord {
  task: string;
  attempts: number;
  durationMs: number;
  status: 'ok' | 'error';
  error?: CallErrorInfo;
}

export type StepCallResult =
  | { status: 'ok'; result: unknown; ctx: Record<string, unknown>; iter: Record<string, unknown>; calls: CallRecord[] }
  | { status: 'error'; error: CallErrorInfo; ctx: Record<string, unknown>; iter: Record<string, unknown>; calls: CallRecord[] };

export type SinkResult = { status: 'ok' } | { status: 'error'; error: CallErrorInfo };
