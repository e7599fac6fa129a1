import type { JsonObject, Playbook, Step } from '../model';
import { EXECUTOR_KEYS, TOP_KEYS } from './allowed-keys';
import { normaliseSchedule } from './normalise-schedule';
import { readPool } from './normalise-pool';
import { normaliseStep } from './normalise-step';
import { normaliseKeychain, normaliseWorkbook } from './normalise-workbook';
import { checkKeys, type ParseContext } from './parse-context';
import { has, indexPath, isNonEmptyString, isRawMap, keyPath, toJsonObject, type RawMap } from './raw-shape';
import { checkReferences, checkUniqueStepNames } from './validate-references';

/** `noetl.io/v2`, `v1`, `v10`, ... (DSL.md s1). */
const API_VERSION = /^noetl\.io\/v\d+[a-z0-9]*$/i;

/** The whole document -> one Playbook; every problem goes to `ctx`. */
export function normaliseDocument(raw: unknown, ctx: ParseContext): Playbook | undefined {
  if (!isRawMap(raw)) {
    ctx.problems.add('', 'a playbook must be a YAML mapping (apiVersion, kind, metadata, workflow, ...)');
    return undefined;
  }
  checkKeys(raw, TOP_KEYS, '', ctx);
  const apiVersion = checkApiVersion(raw, ctx);
  if (raw.kind !== 'Playbook')
    ctx.problems.add(
      has(raw, 'kind') ? 'kind' : '',
      `"kind" must be "Playbook"${has(raw, 'kind') ? `, not ${JSON.stringify(raw.kind)}` : ''}`,
    );
  const { metadata, name, path, description } = readMetadata(raw, ctx);
  const workbook = normaliseWorkbook(raw.workbook, ctx);
  const keychain = normaliseKeychain(raw.keychain, ctx);
  const steps = readWorkflow(raw, ctx);
  const stepNames = new Set(steps.map((s) => s.name));
  checkReferences(stepNames, new Set(workbook.map((w) => w.name)), ctx);
  const playbook: Playbook = {
    apiVersion,
    kind: 'Playbook',
    name,
    path,
    metadata,
    workload: readWorkload(raw, ctx),
    keychain,
    workbook,
    executor: readExecutor(raw, steps, stepNames, ctx),
    steps,
  };
  if (description !== undefined) playbook.description = description;
  const schedule = normaliseSchedule(raw.metadata, ctx);
  if (schedule) playbook.schedule = schedule;
  return playbook;
}

function checkApiVersion(raw: RawMap, ctx: ParseContext): string {
  const value = raw.apiVersion;
  if (typeof value === 'string' && API_VERSION.test(value)) return value;
  if (!has(raw, 'apiVersion')) ctx.problems.add('', 'missing "apiVersion" (e.g. noetl.io/v2)');
  else ctx.problems.add('apiVersion', `unsupported apiVersion ${JSON.stringify(value)} (expected noetl.io/v2)`);
  return typeof value === 'string' ? value : '';
}

function readMetadata(raw: RawMap, ctx: ParseContext): { metadata: JsonObject; name: string; path: string; description?: string } {
  if (!isRawMap(raw.metadata)) {
    ctx.problems.add(
      has(raw, 'metadata') ? 'metadata' : '',
      has(raw, 'metadata') ? '"metadata" must be a mapping' : 'missing "metadata" with "name"',
    );
    return { metadata: {}, name: '', path: '' };
  }
  const metadata = raw.metadata;
  let name = '';
  if (isNonEmptyString(metadata.name)) name = metadata.name;
  else ctx.problems.add('metadata.name', 'metadata needs "name"');
  let path = name;
  if (isNonEmptyString(metadata.path)) path = metadata.path;
  else if (has(metadata, 'path') && metadata.path !== null) ctx.problems.add('metadata.path', '"metadata.path" must be a non-empty string');
  const description = typeof metadata.description === 'string' ? metadata.description : undefined;
  return { metadata: toJsonObject(metadata), name, path, ...(description !== undefined ? { description } : {}) };
}

function readWorkload(raw: RawMap, ctx: ParseContext): JsonObject {
  if (raw.workload === undefined || raw.workload === null) return {};
  if (isRawMap(raw.workload)) return toJsonObject(raw.workload);
  ctx.problems.add('workload', '"workload" must be a mapping');
  return {};
}

function readWorkflow(raw: RawMap, ctx: ParseContext): Step[] {
  const workflow = raw.workflow;
  if (!Array.isArray(workflow) || workflow.length === 0) {
    const message =
      Array.isArray(workflow) || workflow === null
        ? '"workflow" needs at least one step'
        : has(raw, 'workflow')
          ? '"workflow" must be a list of steps'
          : 'missing "workflow" (a list of steps)';
    ctx.problems.add(has(raw, 'workflow') ? 'workflow' : '', message);
    return [];
  }
  const read: Array<{ step: Step; path: string }> = [];
  workflow.forEach((item, index) => {
    const path = indexPath('workflow', index);
    const step = normaliseStep(item, path, ctx);
    if (step) read.push({ step, path });
  });
  checkUniqueStepNames(
    read.filter((r) => r.step.name !== ''),
    ctx,
  );
  return read.map((r) => r.step);
}

/** `executor.spec.entry_step` (default: `start` if present, else the first step), `final_step` and `pool` (the steps' default worker pool). */
function readExecutor(raw: RawMap, steps: Step[], stepNames: ReadonlySet<string>, ctx: ParseContext): Playbook['executor'] {
  const fallback = stepNames.has('start') ? 'start' : (steps[0]?.name ?? '');
  const executor: Playbook['executor'] = { entryStep: fallback };
  if (raw.executor === undefined || raw.executor === null) return executor;
  if (!isRawMap(raw.executor)) {
    ctx.problems.add('executor', '"executor" must be a mapping');
    return executor;
  }
  checkKeys(raw.executor, EXECUTOR_KEYS, 'executor', ctx);
  const spec = raw.executor.spec;
  if (spec === undefined || spec === null) return executor;
  if (!isRawMap(spec)) {
    ctx.problems.add('executor.spec', '"spec" must be a mapping');
    return executor;
  }
  const entry = stepReference(spec, 'entry_step', stepNames, ctx);
  if (entry !== undefined) executor.entryStep = entry;
  const final = stepReference(spec, 'final_step', stepNames, ctx);
  if (final !== undefined) executor.finalStep = final;
  const pool = readPool(spec.pool, 'executor.spec.pool', ctx);
  if (pool !== undefined) executor.pool = pool;
  return executor;
}

function stepReference(spec: RawMap, key: string, stepNames: ReadonlySet<string>, ctx: ParseContext): string | undefined {
  const value = spec[key];
  if (value === undefined || value === null) return undefined;
  const path = keyPath('executor.spec', key);
  if (!isNonEmptyString(value)) {
    ctx.problems.add(path, `"${key}" must be a step name`);
    return undefined;
  }
  if (!stepNames.has(value)) ctx.problems.add(path, `unknown step "${value}"`);
  return value;
}
