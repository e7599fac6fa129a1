import type { Sink, Step } from '../model';
import { compileRetry, compileSet } from '../policy';
import { STEP_KEYS, TOOL_CONFIG_KEYS } from './allowed-keys';
import { checkStreaming } from './check-streaming';
import { normaliseBindings } from './normalise-bindings';
import { normaliseLoop } from './normalise-loop';
import { normaliseNext } from './normalise-next';
import { compilePerIterationSink, normaliseSink } from './normalise-sink';
import { normaliseToolSpec } from './normalise-tool';
import { checkKeys, suggest, type ParseContext } from './parse-context';
import { has, isNonEmptyString, isRawMap, keyPath, toJsonObject, type RawMap } from './raw-shape';

/**
 * One `workflow:` entry. The seeds' form `tool: http` (a bare kind) takes
 * every key that is not a step key as a tool key, so it yields the same
 * ToolSpec as `tool: {kind: http, ...}`.
 */
export function normaliseStep(raw: unknown, path: string, ctx: ParseContext): Step | undefined {
  if (!isRawMap(raw)) {
    ctx.problems.add(path, 'a step must be a mapping with "step"');
    return undefined;
  }
  const bareKind = typeof raw.tool === 'string';
  if (bareKind) checkLikelyTypos(raw, path, ctx);
  else checkKeys(raw, STEP_KEYS, path, ctx, toolKeyHint);
  const name = stepName(raw, path, ctx);
  const desc = isNonEmptyString(raw.desc) ? raw.desc : raw.description;
  const step: Step = {
    name,
    ...(typeof desc === 'string' ? { desc } : {}),
    input: normaliseBindings(raw, path, ctx),
    retry: has(raw, 'retry') ? compileRetry(raw.retry, keyPath(path, 'retry'), ctx.problems.report, sinkCompiler(ctx)) : [],
    set: stepSet(raw, path, ctx),
    next: normaliseNext(raw.next, keyPath(path, 'next'), ctx),
  };
  const tool = bareKind
    ? bareKindTool(raw, path, name, ctx)
    : has(raw, 'tool') && raw.tool !== null
      ? normaliseToolSpec(raw.tool, keyPath(path, 'tool'), name, ctx)
      : undefined;
  if (tool) step.tool = tool;
  if (tool?.pool !== undefined) step.pool = tool.pool;
  if (has(raw, 'loop')) {
    const loop = normaliseLoop(raw.loop, keyPath(path, 'loop'), ctx);
    if (loop) step.loop = loop;
    if (!has(raw, 'tool') || raw.tool === null) ctx.problems.add(keyPath(path, 'loop'), 'a loop step needs a "tool": the loop body', 'key');
    if (tool?.tasks.some((task) => task.kind === 'wait'))
      ctx.problems.add(keyPath(path, 'loop'), 'a loop body cannot "wait": a signal parks a whole step, not one iteration', 'key');
  }
  if (has(raw, 'sink')) attachSink(raw, step, path, ctx);
  if (has(raw, 'output')) {
    if (isRawMap(raw.output)) step.output = toJsonObject(raw.output);
    else ctx.problems.add(keyPath(path, 'output'), '"output" must be a mapping (e.g. {output_select: [...]})');
  }
  if (has(raw, 'spec') && raw.spec !== null && !isRawMap(raw.spec)) ctx.problems.add(keyPath(path, 'spec'), '"spec" must be a mapping');
  checkStreaming(step, path, bareKind ? path : keyPath(path, 'tool'), ctx);
  return step;
}

function stepName(raw: RawMap, path: string, ctx: ParseContext): string {
  if (isNonEmptyString(raw.step)) return raw.step;
  ctx.problems.add(has(raw, 'step') ? keyPath(path, 'step') : path, 'a step needs a name in "step"');
  return '';
}

/** Step `set:` (bare keys mean ctx) followed by the legacy `vars:` block (ctx writes). */
function stepSet(raw: RawMap, path: string, ctx: ParseContext): Step['set'] {
  const set = has(raw, 'set') ? compileSet(raw.set, keyPath(path, 'set'), ctx.problems.report, 'ctx') : [];
  const vars = has(raw, 'vars') ? compileSet(raw.vars, keyPath(path, 'vars'), ctx.problems.report, 'ctx') : [];
  return [...set, ...vars];
}

/** `tool: http` with `url`, `params`, ... on the step: the non-step keys are the tool's. */
function bareKindTool(raw: RawMap, path: string, name: string, ctx: ParseContext): Step['tool'] {
  const toolKeys: RawMap = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!STEP_KEYS.has(key)) Object.defineProperty(toolKeys, key, { value, enumerable: true, writable: true, configurable: true });
  }
  toolKeys.kind = raw.tool;
  return normaliseToolSpec(toolKeys, path, name, ctx, keyPath(path, 'tool'));
}

/** A step-level sink of a loop step is the loop's per-iteration sink (DSL.md s4). */
function attachSink(raw: RawMap, step: Step, path: string, ctx: ParseContext): void {
  const sink = normaliseSink(raw.sink, keyPath(path, 'sink'), ctx);
  if (!sink) return;
  if (!step.loop) {
    step.sink = sink;
  } else if (step.loop.sink) {
    ctx.problems.add(keyPath(path, 'sink'), 'a loop step has "sink" both on the step and inside "loop"');
  } else {
    step.loop.sink = sink;
  }
}

/** In the bare-kind form unknown keys are tool keys, but `nxt` is surely a misspelt `next`. */
function checkLikelyTypos(raw: RawMap, path: string, ctx: ParseContext): void {
  for (const key of Object.keys(raw)) {
    if (STEP_KEYS.has(key) || TOOL_CONFIG_KEYS.has(key)) continue;
    const hint = suggest(key, STEP_KEYS);
    if (hint) ctx.problems.add(keyPath(path, key), `unknown key "${key}" (${hint})`, 'key');
  }
}

function sinkCompiler(ctx: ParseContext): (raw: unknown, path: string) => Sink | undefined {
  return (raw, path) => compilePerIterationSink(raw, path, ctx);
}

function toolKeyHint(key: string): string | undefined {
  return TOOL_CONFIG_KEYS.has(key) ? `a tool key: put it inside "tool"` : undefined;
}
