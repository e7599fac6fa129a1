import type { Json, JsonObject } from '@noetl/event-kernel';
import {
  CallError,
  isJsonObject,
  runStepCall,
  toPlainJson,
  withResultViews,
  type ExpressionEngine,
  type InterpreterDeps,
  type Policy,
  type ToolKind,
  type ToolSpec,
} from '@noetl/dsl';
import type { ToolRegistry } from '@noetl/tools';
import type { ClaimedCommand, CompleteRequest, FailRequest } from '../control-plane/control-plane';
import { callReportOf, eventErrorOf } from './call-errors';

export interface CommandRunnerDeps {
  tools: ToolRegistry;
  engine: ExpressionEngine;
  pythonEnabled: boolean;
  resolveCredential(name: string): Promise<Record<string, unknown>>;
  /** A `playbook` call inside a pipeline or loop body: runs the child to its end and gives its result (or throws CallError). */
  runChild?(config: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  onOutput?(stream: 'stdout' | 'stderr', text: string): void;
}

export type CommandReport = { status: 'COMPLETED'; request: Omit<CompleteRequest, 'worker_id'> } | { status: 'FAILED'; request: Omit<FailRequest, 'worker_id'> };

/**
 * Runs a claimed command's call in process (DSL.md s3, s5): the step's tool
 * or pipeline through the interpreter, with task policies and success-side
 * continuation, tools from the registry. Never throws for a failed call: the
 * report says FAILED with the classified error (a template error included).
 */
export async function runCommand(command: ClaimedCommand, signal: AbortSignal, interpreter: InterpreterDeps): Promise<CommandReport> {
  const started = performance.now();
  const spec = command.spec;
  const outcome = await runStepCall(
    {
      stepName: command.step,
      tool: spec['tool'] as unknown as ToolSpec,
      stepInput: (isJsonObject(spec['input']) ? spec['input'] : {}) as JsonObject,
      retry: (Array.isArray(spec['retry']) ? spec['retry'] : []) as unknown as Policy[],
      scope: withResultViews(command.scope, command.result_views ?? {}),
      signal,
    },
    interpreter,
  );
  const common = {
    ctx: asObject(toPlainJson(outcome.ctx)),
    calls: outcome.calls.map(callReportOf),
    duration_ms: Math.round(performance.now() - started),
  };
  if (outcome.status === 'ok') return { status: 'COMPLETED', request: { result: toPlainJson(outcome.result), ...common } };
  return { status: 'FAILED', request: { error: eventErrorOf(outcome.error, command.step), ...common } };
}

/** What runs a call at the worker: the registry's tools, real time, real randomness. */
export function workerInterpreter(deps: CommandRunnerDeps, at: CallSite): InterpreterDeps {
  return {
    engine: deps.engine,
    callTool: (kind, config, signal) => callTool(deps, at, kind, config, signal),
    sleep: (ms, signal) => sleep(ms, signal),
    random: Math.random,
    monotonicMs: () => performance.now(),
  };
}

/** Where a call runs: its execution, step and (plain) scope. */
interface CallSite {
  executionId: string;
  step: string;
  scope: Record<string, unknown>;
}

async function callTool(
  deps: CommandRunnerDeps,
  at: CallSite,
  kind: ToolKind,
  config: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  if (kind === 'sleep') {
    // Inside a pipeline a sleep holds the worker; a step whose whole tool is `sleep` is a durable timer instead.
    const seconds = Number(config['seconds'] ?? 0);
    await sleep(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0, signal);
    return { slept_seconds: seconds };
  }
  if (kind === 'playbook' && deps.runChild) return deps.runChild(config, signal);
  if (kind === 'playbook' || kind === 'workbook') {
    // A workbook call is resolved when the command is issued; a playbook call needs the worker's control plane.
    throw new CallError({ kind: 'internal', message: `a ${kind} call cannot run here (step ${at.step})`, retryable: false });
  }
  return deps.tools.get(kind).run(config, {
    signal,
    executionId: at.executionId,
    resolveCredential: deps.resolveCredential,
    pythonEnabled: deps.pythonEnabled,
    scope: at.scope,
    ...(deps.onOutput ? { onOutput: deps.onOutput } : {}),
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new CallError({ kind: 'cancelled', message: 'cancelled', retryable: false }));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CallError({ kind: 'cancelled', message: 'cancelled', retryable: false }));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function asObject(value: Json): JsonObject {
  return isJsonObject(value) ? value : {};
}
