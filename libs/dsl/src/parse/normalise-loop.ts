import type { CursorSpec, LoopSource, LoopSpec } from '../model';
import { isTemplate } from '../expressions';
import { CURSOR_KEYS, FANOUT_KEYS, LOOP_KEYS } from './allowed-keys';
import { normaliseFrame } from './normalise-frame';
import { normaliseSink } from './normalise-sink';
import { checkKeys, pickAlias, type ParseContext } from './parse-context';
import { has, isNonEmptyString, isNonNegativeInt, isPositiveInt, isRawMap, keyPath, toJson, type RawMap } from './raw-shape';

/** Concurrency of a parallel loop that does not say (DSL.md gives none). */
export const DEFAULT_PARALLEL_MAX_IN_FLIGHT = 10;
/** `spec.fanout.max_shard_retries` default (DSL.md s4.2). */
export const DEFAULT_MAX_SHARD_RETRIES = 2;

const MODE_SPELLINGS: ReadonlyMap<unknown, LoopSpec['mode']> = new Map<unknown, LoopSpec['mode']>([
  ['sequential', 'sequential'],
  ['parallel', 'parallel'],
  ['async', 'parallel'],
  ['cursor', 'cursor'],
]);

const ITERATOR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `loop:` in every accepted spelling (DSL.md s4): `in`/`collection`,
 * `iterator`/`element`, `mode` at loop level or in `spec`, `async` ->
 * parallel, `concurrency` -> max_in_flight, fan-out, frame and cursor loops.
 */
export function normaliseLoop(raw: unknown, path: string, ctx: ParseContext): LoopSpec | undefined {
  if (!isRawMap(raw)) {
    ctx.problems.add(path, '"loop" must be a mapping');
    return undefined;
  }
  checkKeys(raw, LOOP_KEYS, path, ctx);
  const spec = loopSpec(raw, path, ctx);
  const specPath = keyPath(path, 'spec');
  const source = loopSource(raw, path, ctx);
  const iterator = loopIterator(raw, path, ctx);
  const mode = loopMode(raw, spec, source, path, ctx);
  const loop: LoopSpec = {
    source: source ?? { kind: 'collection', in: [] },
    iterator: iterator ?? '',
    mode,
    ...optionalMaxInFlight(raw, spec, path, ctx),
    fanout: fanout(spec, specPath, ctx),
    maxShardRetries: maxShardRetries(spec, specPath, ctx),
    frame: normaliseFrame(spec.frame, keyPath(specPath, 'frame'), ctx),
  };
  if (loop.fanout && loop.source.kind === 'cursor')
    ctx.problems.add(keyPath(specPath, 'loop_mode'), 'a fan-out needs a collection ("in"), not a cursor');
  if (has(raw, 'sink')) {
    const sink = normaliseSink(raw.sink, keyPath(path, 'sink'), ctx);
    if (sink) loop.sink = sink;
  }
  return loop;
}

function loopSpec(raw: RawMap, path: string, ctx: ParseContext): RawMap {
  if (raw.spec === undefined || raw.spec === null) return {};
  if (isRawMap(raw.spec)) return raw.spec; // unknown keys inside spec are allowed (e.g. `policy: {exec: distributed}`)
  ctx.problems.add(keyPath(path, 'spec'), '"spec" must be a mapping');
  return {};
}

function loopSource(raw: RawMap, path: string, ctx: ParseContext): LoopSource | undefined {
  const collection = pickAlias(raw, ['in', 'collection'], path, ctx);
  const hasCursor = has(raw, 'cursor');
  if (collection && hasCursor) {
    ctx.problems.add(path, `loop has both "${collection.key}" and "cursor"`);
    return undefined;
  }
  if (hasCursor) {
    const cursor = cursorSpec(raw.cursor, keyPath(path, 'cursor'), ctx);
    return cursor && { kind: 'cursor', cursor };
  }
  if (!collection) {
    ctx.problems.add(path, 'loop needs "in" (or "collection") or "cursor"');
    return undefined;
  }
  const value = collection.value;
  if (typeof value !== 'string' && !Array.isArray(value)) {
    ctx.problems.add(keyPath(path, collection.key), `loop "${collection.key}" must be a template or a list`);
    return undefined;
  }
  return { kind: 'collection', in: toJson(value) };
}

function cursorSpec(raw: unknown, path: string, ctx: ParseContext): CursorSpec | undefined {
  if (!isRawMap(raw)) {
    ctx.problems.add(path, '"cursor" must be a mapping {kind: postgres, auth, claim}');
    return undefined;
  }
  checkKeys(raw, CURSOR_KEYS, path, ctx);
  let ok = true;
  if (raw.kind !== undefined && raw.kind !== 'postgres') {
    ok = false;
    ctx.problems.add(keyPath(path, 'kind'), `unknown cursor kind ${JSON.stringify(raw.kind)} (only "postgres")`);
  }
  if (!isNonEmptyString(raw.claim)) {
    ok = false;
    ctx.problems.add(has(raw, 'claim') ? keyPath(path, 'claim') : path, 'cursor needs "claim" SQL');
  }
  const auth = pickAlias(raw, ['auth', 'credential'], path, ctx)?.value;
  const connection = raw.connection;
  if (!isNonEmptyString(auth) && !isNonEmptyString(connection)) {
    ok = false;
    ctx.problems.add(path, 'cursor needs "auth" or "connection"');
  }
  if (!ok || !isNonEmptyString(raw.claim)) return undefined;
  return {
    kind: 'postgres',
    claim: raw.claim,
    ...(isNonEmptyString(auth) ? { auth } : {}),
    ...(isNonEmptyString(connection) ? { connection } : {}),
  };
}

function loopIterator(raw: RawMap, path: string, ctx: ParseContext): string | undefined {
  const picked = pickAlias(raw, ['iterator', 'element'], path, ctx);
  if (!picked) {
    ctx.problems.add(path, 'loop needs "iterator"');
    return undefined;
  }
  if (typeof picked.value === 'string' && ITERATOR_NAME.test(picked.value)) return picked.value;
  ctx.problems.add(keyPath(path, picked.key), `loop "${picked.key}" must be a name such as "item", not ${JSON.stringify(picked.value)}`);
  return undefined;
}

function loopMode(raw: RawMap, spec: RawMap, source: LoopSource | undefined, path: string, ctx: ParseContext): LoopSpec['mode'] {
  const isCursor = source?.kind === 'cursor' || has(raw, 'cursor');
  const given: Array<[unknown, string]> = [];
  if (spec.mode !== undefined && spec.mode !== null) given.push([spec.mode, keyPath(path, 'spec.mode')]);
  if (raw.mode !== undefined && raw.mode !== null) given.push([raw.mode, keyPath(path, 'mode')]);
  let mode: LoopSpec['mode'] | undefined;
  for (const [value, at] of given) {
    const spelled = MODE_SPELLINGS.get(value);
    if (spelled === undefined) {
      ctx.problems.add(at, `unknown loop mode ${JSON.stringify(value)} (expected "sequential", "parallel", "async" or "cursor")`);
    } else if (mode !== undefined && mode !== spelled) {
      ctx.problems.add(at, `loop mode given twice: "${mode}" in "spec.mode" and "${spelled}" in "mode"`);
    } else {
      mode = spelled;
    }
  }
  const result = mode ?? (isCursor ? 'cursor' : 'sequential');
  if (result === 'cursor' && !isCursor) ctx.problems.add(path, 'loop mode "cursor" needs "loop.cursor"');
  if (result !== 'cursor' && isCursor) ctx.problems.add(path, `a loop with "cursor" must have mode "cursor", not "${result}"`);
  return result;
}

/** `max_in_flight` (or `concurrency`) as given; absent when it is not (the planner's default depends on the loop's size). */
function optionalMaxInFlight(raw: RawMap, spec: RawMap, path: string, ctx: ParseContext): Pick<LoopSpec, 'maxInFlight'> {
  const fromSpec = pickAlias(spec, ['max_in_flight', 'concurrency'], keyPath(path, 'spec'), ctx);
  const fromLoop = pickAlias(raw, ['max_in_flight', 'concurrency'], path, ctx);
  if (fromSpec && fromLoop)
    ctx.problems.add(keyPath(path, fromLoop.key), `"${fromLoop.key}" is also given as "spec.${fromSpec.key}"; give it once`, 'key');
  const picked = fromSpec
    ? { ...fromSpec, path: keyPath(path, `spec.${fromSpec.key}`) }
    : fromLoop && { ...fromLoop, path: keyPath(path, fromLoop.key) };
  if (!picked || picked.value === null) return {};
  const value = picked.value;
  if (isPositiveInt(value)) return { maxInFlight: value };
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value) && Number(value) > 0) return { maxInFlight: Number(value) };
  if (typeof value === 'string' && isTemplate(value)) return { maxInFlight: value };
  ctx.problems.add(picked.path, `"${picked.key}" must be a positive integer or a template, not ${JSON.stringify(value)}`);
  return {};
}

function fanout(spec: RawMap, specPath: string, ctx: ParseContext): boolean {
  const mode = spec.loop_mode;
  if (mode === undefined || mode === null) return false;
  if (mode === 'fanout') return true;
  ctx.problems.add(keyPath(specPath, 'loop_mode'), `unknown loop_mode ${JSON.stringify(mode)} (expected "fanout")`);
  return false;
}

function maxShardRetries(spec: RawMap, specPath: string, ctx: ParseContext): number {
  const raw = spec.fanout;
  const path = keyPath(specPath, 'fanout');
  if (raw === undefined || raw === null) return DEFAULT_MAX_SHARD_RETRIES;
  if (!isRawMap(raw)) {
    ctx.problems.add(path, '"fanout" must be a mapping');
    return DEFAULT_MAX_SHARD_RETRIES;
  }
  checkKeys(raw, FANOUT_KEYS, path, ctx);
  const value = raw.max_shard_retries;
  if (value === undefined || value === null) return DEFAULT_MAX_SHARD_RETRIES;
  if (isNonNegativeInt(value)) return value;
  ctx.problems.add(keyPath(path, 'max_shard_retries'), `"max_shard_retries" must be a non-negative integer, not ${JSON.stringify(value)}`);
  return DEFAULT_MAX_SHARD_RETRIES;
}
