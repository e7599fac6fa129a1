import { ExpressionEngine } from '../../expressions';
import { answerRenderRequest, OffloadingRenderer } from '../../render';
import { CallError, httpCallError, type Step, type ToolKind } from '../../model';
import { stepsOf } from '../../parse/testing/playbook-text';
import type { InterpreterDeps, StepCallResult } from '../interpreter-deps';
import type { FrameArgs } from '../run-frame';
import { runStepCall } from '../run-step-call';

/** One call a fake tool received. */
export interface SeenCall {
  kind: ToolKind;
  config: Record<string, unknown>;
}

/** Answers a call: a value to resolve with, or throws (e.g. `throw httpError(500)`). */
export type Script = (kind: ToolKind, config: Record<string, unknown>, index: number, signal: AbortSignal) => unknown;

export interface FakeDeps extends InterpreterDeps {
  calls: SeenCall[];
  sleeps: number[];
  /** What went past the renderer's inline slice. */
  offloaded: unknown[];
}

/** A call takes 5 ms of the fake monotonic clock; a sleep advances it by its length. */
export const CALL_MS = 5;

/**
 * Deps with a scripted tool, a recording sleep, a fixed random 0.5 and a fake monotonic clock.
 * `inlineWork` is the renderer's inline slice; a render past it is "offloaded" in process, through the request a render thread
 * answers, which must survive a structured clone as on its way to a thread (the clone itself is not used: its objects would
 * come from outside the test runner's realm).
 */
export function fakeDeps(script: Script, options: { maxTaskRuns?: number; inlineWork?: number } = {}): FakeDeps {
  let clock = 1000;
  const calls: SeenCall[] = [];
  const sleeps: number[] = [];
  const offloaded: unknown[] = [];
  const engine = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'uuid-1' });
  return {
    calls,
    sleeps,
    offloaded,
    render: new OffloadingRenderer(
      engine,
      { work: options.inlineWork ?? engine.limits.maxWork, ms: Infinity, clock: () => 0 },
      async (request) => {
        offloaded.push(request.value);
        structuredClone(request);
        return answerRenderRequest(engine, request);
      },
    ),
    callTool: async (kind, config, signal) => {
      calls.push({ kind, config });
      clock += CALL_MS;
      return script(kind, config, calls.length - 1, signal);
    },
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    random: () => 0.5,
    monotonicMs: () => clock,
    ...(options.maxTaskRuns !== undefined ? { maxTaskRuns: options.maxTaskRuns } : {}),
  };
}

/** An HTTP tool's raw result (RESULT_SHAPES s2 Recommend). */
export function http(data: unknown, status = 200, headers: Record<string, string> = {}): Record<string, unknown> {
  return { status_code: status, headers, url: 'http://api.test/x', elapsed: 0.01, data, body: data };
}

/** What the HTTP tool throws for a status >= 400 (the error body as its data). */
export function httpError(status: number, message = `HTTP ${status}`, body: unknown = { error: message }): CallError {
  return new CallError(httpCallError(status, message), http(body, status));
}

/** A postgres tool's raw result. */
export function rows(list: Record<string, unknown>[]): Record<string, unknown> {
  return { rows: list, row_count: list.length, columns: Object.keys(list[0] ?? {}), status: 'ok', statement_count: 1 };
}

/** The one step of a playbook whose workflow is `yaml`. */
export function stepOf(yaml: string): Step {
  const [step] = stepsOf(yaml);
  if (step === undefined) throw new Error('no step');
  return step;
}

/** Runs the first step of `yaml` with `scope` (default: a small workload as ctx and bare keys). */
export function runYaml(
  yaml: string,
  deps: InterpreterDeps,
  scope: Record<string, unknown> = defaultScope(),
  signal: AbortSignal = new AbortController().signal,
): Promise<StepCallResult> {
  const step = stepOf(yaml);
  if (step.tool === undefined) throw new Error('a routing step has no tool');
  return runStepCall({ stepName: step.name, tool: step.tool, stepInput: step.input, retry: step.retry, scope, signal }, deps);
}

/** A frame of `rows` of `step`'s loop body: rows 10 on of 20, one at a time, calls recorded; `extra` overrides. */
export function frameArgs(step: Step, rows: unknown[], extra: Partial<FrameArgs> = {}): FrameArgs {
  return {
    stepName: step.name,
    tool: step.tool!,
    stepInput: step.input,
    retry: step.retry,
    iterator: step.loop?.iterator ?? 'item',
    process: 'row',
    ...(step.loop?.sink ? { sink: step.loop.sink } : {}),
    rows,
    firstIndex: 10,
    total: 20,
    frameIndex: 5,
    rowConcurrency: 1,
    scope: defaultScope(),
    signal: new AbortController().signal,
    recordCalls: true,
    ...extra,
  };
}

export function defaultScope(): Record<string, unknown> {
  const workload = { api_url: 'http://api.test', page_size: 2 };
  return { ...workload, workload, ctx: { ...workload }, execution_id: '42' };
}

/** Narrows a result to its ok branch (the test fails with the error otherwise). */
export function okResult(result: StepCallResult): Extract<StepCallResult, { status: 'ok' }> {
  if (result.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result;
}

export function errorResult(result: StepCallResult): Extract<StepCallResult, { status: 'error' }> {
  if (result.status !== 'error') throw new Error(`expected an error, got ${JSON.stringify(result.result)}`);
  return result;
}
