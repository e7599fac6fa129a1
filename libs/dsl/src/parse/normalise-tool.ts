import { TOOL_KINDS, type JsonObject, type Task, type ToolKind, type ToolSpec } from '../model';
import { compileRules, compileSet } from '../policy';
import { TASK_STRUCTURE_KEYS } from './allowed-keys';
import { normaliseBindings } from './normalise-bindings';
import { readPool } from './normalise-pool';
import { pickAlias, suggest, type ParseContext } from './parse-context';
import { has, indexPath, isNonEmptyString, isRawMap, keyPath, toJson, type RawMap } from './raw-shape';
import { checkRequiredKeys } from './tool-requirements';
import { checkJumpTargets, type CompiledTask } from './validate-references';

const KIND_ALIASES: ReadonlyMap<string, ToolKind> = new Map([['js', 'javascript']]);

/** Per-kind key aliases (DSL.md s3); `credential` -> `auth` holds for every kind. */
const KEY_ALIASES: ReadonlyArray<{ kinds?: readonly ToolKind[]; canonical: string; aliases: readonly string[] }> = [
  { canonical: 'auth', aliases: ['credential'] },
  { kinds: ['http'], canonical: 'url', aliases: ['endpoint'] },
  { kinds: ['http'], canonical: 'body', aliases: ['payload', 'json', 'data'] },
];

export interface TaskOptions {
  /** True for an entry of a list-valued `tool:`: its name is read from `name`. */
  pipeline: boolean;
  /** The task name of a single tool (the step, workbook entry or `sink`). */
  name?: string;
  /** Where the kind is written when not at `<path>.kind` (the bare `tool: http` form). */
  kindPath?: string;
  /** True for the one tool of a step: the only place a `wait` may stand (it parks the step itself). */
  stepTool?: boolean;
}

/**
 * A step's `tool:` as a mapping (one task named after the step) or a list (a
 * pipeline). The bare `tool: http` form is turned into a mapping by the step.
 */
export function normaliseToolSpec(
  raw: unknown,
  path: string,
  stepName: string,
  ctx: ParseContext,
  kindPath?: string,
): ToolSpec | undefined {
  if (Array.isArray(raw)) return normalisePipeline(raw, path, ctx);
  if (!isRawMap(raw)) {
    ctx.problems.add(path, '"tool" must be a mapping, a list of tasks or a tool kind');
    return undefined;
  }
  const task = normaliseTask(raw, path, ctx, { pipeline: false, name: stepName, kindPath, stepTool: true });
  // In the bare-kind form (`tool: http`) the tool's keys, `pool` among them, sit on the step: `path` is the step's then.
  const pool = readPool(raw.pool, keyPath(path, 'pool'), ctx);
  if (!task) return undefined;
  checkJumpTargets([{ task, raw, path }], ctx);
  return { tasks: [task], pipeline: false, ...(pool !== undefined ? { pool } : {}) };
}

function normalisePipeline(raw: unknown[], path: string, ctx: ParseContext): ToolSpec | undefined {
  if (raw.length === 0) {
    ctx.problems.add(path, 'a tool list (pipeline) needs at least one task');
    return undefined;
  }
  const compiled: CompiledTask[] = [];
  const firstLine = new Map<string, number>();
  raw.forEach((item, index) => {
    const itemPath = indexPath(path, index);
    const task = normaliseTask(item, itemPath, ctx, { pipeline: true });
    if (isRawMap(item) && isNonEmptyString(item.name)) {
      const first = firstLine.get(item.name);
      if (first !== undefined) ctx.problems.add(keyPath(itemPath, 'name'), `duplicate task name "${item.name}" (first at line ${first})`);
      else firstLine.set(item.name, ctx.problems.lineOf(itemPath));
    }
    if (task) compiled.push({ task, raw: item, path: itemPath });
  });
  checkJumpTargets(compiled, ctx);
  return { tasks: compiled.map((c) => c.task), pipeline: true };
}

/** One tool call: kind, name, input, task `set`, `spec.policy` rules and the kind's configuration. */
export function normaliseTask(raw: unknown, path: string, ctx: ParseContext, options: TaskOptions): Task | undefined {
  if (!isRawMap(raw)) {
    ctx.problems.add(path, 'a tool must be a mapping with a "kind"');
    return undefined;
  }
  const kind = normaliseKind(raw, path, ctx, options.kindPath ?? keyPath(path, 'kind'));
  const name = options.pipeline ? pipelineTaskName(raw, path, ctx) : options.name;
  const input = normaliseBindings(raw, path, ctx);
  const set = has(raw, 'set') ? compileSet(raw.set, keyPath(path, 'set'), ctx.problems.report, 'local') : [];
  const policies = compilePolicies(raw, path, ctx);
  const config = toolConfig(raw, kind, path, ctx, options.pipeline);
  if (kind === undefined) return undefined;
  checkRequiredKeys(kind, config, path, ctx);
  if (kind === 'wait' && !options.stepTool) {
    ctx.problems.add(
      options.kindPath ?? keyPath(path, 'kind'),
      'a "wait" must be the whole tool of a step: it parks the step, so no pipeline task, workbook entry or sink can wait',
    );
  }
  if (!options.stepTool && typeof raw.pool === 'string') {
    ctx.problems.add(
      keyPath(path, 'pool'),
      'a worker pool is chosen per step: put "pool" on the step (a pipeline, workbook entry or sink runs where its step runs)',
    );
  }
  if (kind === 'workbook' && isNonEmptyString(config.name)) ctx.workbookRefs.push({ name: config.name, path: keyPath(path, 'name') });
  if (name === undefined) return undefined;
  return { name, kind, config, input, policies, set };
}

function normaliseKind(raw: RawMap, path: string, ctx: ParseContext, kindPath: string): ToolKind | undefined {
  const value = raw.kind;
  if (value === undefined || value === null) {
    ctx.problems.add(path, 'tool needs "kind"');
    return undefined;
  }
  if (typeof value !== 'string') {
    ctx.problems.add(kindPath, 'tool "kind" must be a string');
    return undefined;
  }
  const kind = KIND_ALIASES.get(value) ?? value;
  if (isToolKind(kind)) return kind;
  const hint = suggest(value, TOOL_KINDS);
  ctx.problems.add(kindPath, `unknown tool kind "${value}"${hint ? ` (${hint})` : ''}`);
  return undefined;
}

function isToolKind(kind: string): kind is ToolKind {
  return TOOL_KINDS.some((k) => k === kind);
}

function pipelineTaskName(raw: RawMap, path: string, ctx: ParseContext): string | undefined {
  if (isNonEmptyString(raw.name)) return raw.name;
  ctx.problems.add(has(raw, 'name') ? keyPath(path, 'name') : path, 'a pipeline task needs a "name"');
  return undefined;
}

function compilePolicies(raw: RawMap, path: string, ctx: ParseContext): Task['policies'] {
  if (!has(raw, 'spec') || raw.spec === null) return [];
  if (!isRawMap(raw.spec)) {
    ctx.problems.add(keyPath(path, 'spec'), '"spec" must be a mapping');
    return [];
  }
  if (!has(raw.spec, 'policy')) return [];
  return compileRules(raw.spec.policy, keyPath(path, 'spec.policy'), ctx.problems.report);
}

/**
 * The kind's keys: everything but the task structure. A single tool keeps
 * `name` (a workbook entry's name); in a pipeline `name` is the task name, and
 * a workbook task calls the entry of that name.
 */
function toolConfig(raw: RawMap, kind: ToolKind | undefined, path: string, ctx: ParseContext, pipeline: boolean): JsonObject {
  const config: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    const keepName = key === 'name' && (!pipeline || kind === 'workbook');
    if (TASK_STRUCTURE_KEYS.has(key) && !keepName) continue;
    Object.defineProperty(config, key, { value: toJson(value), enumerable: true, writable: true, configurable: true });
  }
  for (const { kinds, canonical, aliases } of KEY_ALIASES) {
    if (kinds && (kind === undefined || !kinds.includes(kind))) continue;
    const names = [canonical, ...aliases];
    const picked = pickAlias(config, names, path, ctx);
    if (!picked) continue;
    for (const name of aliases) delete config[name];
    config[canonical] = toJson(picked.value);
  }
  if (kind === 'python') inlineScript(config);
  return config;
}

/** `script: {uri: inline, source: {type: inline, code}}` -> `code` (RESULT_SHAPES s4). */
function inlineScript(config: JsonObject): void {
  const script = config.script;
  if (config.code !== undefined || !isRawMap(script) || !isRawMap(script.source)) return;
  const { type, code } = script.source;
  if (typeof code !== 'string' || (type !== undefined && type !== 'inline')) return;
  config.code = code;
  delete config.script;
}
