import type { Json, JsonObject } from '@noetl/event-kernel';
import {
  CallError,
  isJsonObject,
  readCallSpec,
  runStepCall,
  toCallErrorInfo,
  toPlainJson,
  withResultViews,
  type CallSpec,
  type Renderer,
  type InterpreterDeps,
  type ToolKind,
} from '@noetl/dsl';
import { SecretSet, type StreamChunk, type ToolRegistry } from '@noetl/tools';
import type { Holder, ClaimedCommand, CompleteRequest, FailRequest } from '../control-plane/control-plane';
import { callReportOf, eventErrorOf } from './call-errors';
import { resolveKeychain } from './keychain';

export interface CommandRunnerDeps {
  tools: ToolRegistry;
  /** Renders that may leave the event loop (issue 25 item 7). */
  render: Renderer;
  pythonEnabled: boolean;
  resolveCredential(name: string): Promise<Record<string, unknown>>;
  /** A `playbook` call inside a pipeline or loop body: runs the child to its end and gives its result (or throws CallError). */
  runChild?(config: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  onOutput?(stream: 'stdout' | 'stderr', text: string): void;
  /** A command's streamed chunk (DSL.md s3 `stream`): reported before the tool reads on. */
  onPartial?(chunk: StreamChunk): Promise<void>;
}

export type CommandReport =
  { status: 'COMPLETED'; request: Omit<CompleteRequest, keyof Holder> } | { status: 'FAILED'; request: Omit<FailRequest, keyof Holder> };

/**
 * Runs a claimed command's call in process (DSL.md s3, s5): the step's tool
 * or pipeline through the interpreter, with task policies and success-side
 * continuation, tools from the registry, its keychain resolved first. Never
 * throws for a failed call: the report says FAILED with the classified error
 * (a template error included). The report is scrubbed of the run's secrets.
 */
export async function runCommand(command: ClaimedCommand, signal: AbortSignal, run: WorkerRun): Promise<CommandReport> {
  const started = performance.now();
  let spec: CallSpec;
  let scope: Record<string, unknown>;
  try {
    spec = readCallSpec(command.spec, command.step);
    scope = await run.scopeWithKeychain(spec, withResultViews(command.scope, command.result_views ?? {}), signal);
  } catch (error) {
    const report: CommandReport = {
      status: 'FAILED',
      request: { error: eventErrorOf(toCallErrorInfo(error), command.step), duration_ms: Math.round(performance.now() - started) },
    };
    return run.secrets.scrub(report);
  }
  const outcome = await runStepCall(
    {
      stepName: command.step,
      tool: spec.tool,
      stepInput: spec.input,
      retry: spec.retry,
      scope,
      signal,
    },
    run.interpreter,
  );
  const common = {
    ctx: asObject(toPlainJson(outcome.ctx)),
    calls: outcome.calls.map(callReportOf),
    duration_ms: Math.round(performance.now() - started),
  };
  const report: CommandReport =
    outcome.status === 'ok'
      ? { status: 'COMPLETED', request: { result: toPlainJson(outcome.result), ...common } }
      : { status: 'FAILED', request: { error: eventErrorOf(outcome.error, command.step), ...common } };
  return run.secrets.scrub(report);
}

/**
 * A `playbook` step's child call, rendered (keychain included) and scrubbed: a secret never
 * becomes a child's workload. Undefined `path` when the step names none.
 */
export async function renderChildCall(
  command: ClaimedCommand,
  run: WorkerRun,
  signal: AbortSignal,
): Promise<{ path?: string; version?: number; payload: JsonObject }> {
  const spec = readCallSpec(command.spec, command.step);
  const task = spec.tool?.tasks[0];
  const scope = await run.scopeWithKeychain(spec, withResultViews(command.scope, command.result_views ?? {}), signal);
  const config = toPlainJson(await run.interpreter.render.renderValue(task?.config ?? {}, scope));
  const input = toPlainJson(await run.interpreter.render.renderValue({ ...spec.input, ...(task?.input ?? {}) }, scope));
  const settings = isJsonObject(config) ? config : {};
  return run.secrets.scrub({
    ...(typeof settings['path'] === 'string' && settings['path'] !== '' ? { path: settings['path'] } : {}),
    ...(typeof settings['version'] === 'number' ? { version: settings['version'] } : {}),
    payload: isJsonObject(input) ? input : {},
  });
}

/**
 * One command's or frame's run at the worker: its interpreter (the registry's tools, real
 * time, real randomness), the redaction set its credentials join as they are resolved
 * (DESIGN.md invariant 8), and its keychain.
 */
export interface WorkerRun {
  interpreter: InterpreterDeps;
  secrets: SecretSet;
  /** `scope` plus `keychain`: the spec's keychain entries resolved at the worker (DSL.md s7); throws CallError. */
  scopeWithKeychain(
    spec: Pick<CallSpec, 'keychain'>,
    scope: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
}

export function workerRun(deps: CommandRunnerDeps, at: CallSite): WorkerRun {
  const secrets = new SecretSet();
  // Every credential a call of this run resolves joins the redaction set before the tool sees it.
  // Resolved once per run: a frame's rows (and a paged call's sinks) name the same credential on every call,
  // and each resolution is a round trip to the control plane that checks the lease the heartbeat already keeps.
  const resolved = new Map<string, Promise<Record<string, unknown>>>();
  const resolveCredential = (name: string): Promise<Record<string, unknown>> => {
    const cached = resolved.get(name);
    if (cached) return cached;
    const resolving = deps.resolveCredential(name).then((data) => {
      secrets.add(data);
      return data;
    });
    // A failed resolution is not kept: the next call asks again.
    resolving.catch(() => resolved.delete(name));
    resolved.set(name, resolving);
    return resolving;
  };
  const guarded: CommandRunnerDeps = {
    ...deps,
    resolveCredential,
    ...(deps.onOutput ? { onOutput: (stream, text) => deps.onOutput?.(stream, secrets.text(text)) } : {}),
    ...(deps.runChild ? { runChild: (config, signal) => deps.runChild!(secrets.scrub(config), signal) } : {}),
    ...(deps.onPartial ? { onPartial: (chunk) => deps.onPartial!(secrets.scrub(chunk)) } : {}),
  };
  return {
    secrets,
    interpreter: {
      render: deps.render,
      callTool: (kind, config, signal) => callTool(guarded, at, kind, config, signal),
      sleep: (ms, signal) => sleep(ms, signal),
      random: Math.random,
      monotonicMs: () => performance.now(),
      yieldTurn: () => new Promise((resolve) => setImmediate(resolve)),
    },
    scopeWithKeychain: async (spec, scope, signal) => {
      if (!spec.keychain) return scope;
      const keychain = await resolveKeychain(spec.keychain, scope, { render: deps.render, resolveCredential, signal });
      for (const data of Object.values(keychain)) secrets.add(data);
      return { ...scope, keychain };
    },
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
    ...(deps.onPartial ? { onPartial: deps.onPartial } : {}),
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
