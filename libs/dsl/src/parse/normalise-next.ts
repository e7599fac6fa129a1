import type { Arc, Next } from '../model';
import { compileSet } from '../policy';
import { ARC_KEYS, NEXT_KEYS } from './allowed-keys';
import { checkKeys, type ParseContext } from './parse-context';
import { has, indexPath, isNonEmptyString, isRawMap, keyPath, quoteList, type RawMap } from './raw-shape';

const MODES: readonly Next['mode'][] = ['exclusive', 'inclusive'];
const ON_NO_MATCH: readonly Next['onNoMatch'][] = ['complete', 'quiet'];

/**
 * Every spelling of `next:` (DSL.md s2): `{spec: {mode, on_no_match}, arcs}`,
 * a list of arcs and/or step names, one step name, or one arc mapping.
 */
export function normaliseNext(raw: unknown, path: string, ctx: ParseContext): Next {
  const next: Next = { mode: 'exclusive', onNoMatch: 'complete', arcs: [] };
  if (raw === undefined || raw === null) return next;
  if (typeof raw === 'string') {
    next.arcs = [nameArc(raw, path, ctx)];
  } else if (Array.isArray(raw)) {
    next.arcs = normaliseArcList(raw, path, ctx);
  } else if (isRawMap(raw) && !has(raw, 'arcs') && !has(raw, 'spec') && has(raw, 'step')) {
    next.arcs = [normaliseArc(raw, path, ctx)];
  } else if (isRawMap(raw)) {
    checkKeys(raw, NEXT_KEYS, path, ctx);
    readSpec(raw.spec, keyPath(path, 'spec'), next, ctx);
    if (Array.isArray(raw.arcs)) next.arcs = normaliseArcList(raw.arcs, keyPath(path, 'arcs'), ctx);
    else if (raw.arcs !== undefined && raw.arcs !== null) ctx.problems.add(keyPath(path, 'arcs'), '"arcs" must be a list');
  } else {
    ctx.problems.add(path, '"next" must be a step name, a list or a mapping with "arcs"');
  }
  return next;
}

function readSpec(spec: unknown, path: string, next: Next, ctx: ParseContext): void {
  if (spec === undefined || spec === null) return;
  if (!isRawMap(spec)) {
    ctx.problems.add(path, '"spec" must be a mapping');
    return;
  }
  // Unknown keys inside `spec` are allowed (DSL.md s1).
  const mode = oneOf(spec, 'mode', MODES, path, ctx);
  if (mode) next.mode = mode;
  const onNoMatch = oneOf(spec, 'on_no_match', ON_NO_MATCH, path, ctx);
  if (onNoMatch) next.onNoMatch = onNoMatch;
}

function oneOf<T extends string>(raw: RawMap, key: string, allowed: readonly T[], path: string, ctx: ParseContext): T | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  const found = allowed.find((a) => a === value);
  if (found === undefined) ctx.problems.add(keyPath(path, key), `"${key}" must be ${quoteList(allowed)}, not ${JSON.stringify(value)}`);
  return found;
}

function normaliseArcList(items: unknown[], path: string, ctx: ParseContext): Arc[] {
  const arcs: Arc[] = [];
  items.forEach((item, index) => {
    const itemPath = indexPath(path, index);
    if (typeof item === 'string') arcs.push(nameArc(item, itemPath, ctx));
    else if (isRawMap(item)) arcs.push(normaliseArc(item, itemPath, ctx));
    else ctx.problems.add(itemPath, 'an arc must be a step name or a mapping with "step"');
  });
  return arcs;
}

function nameArc(name: string, path: string, ctx: ParseContext): Arc {
  ctx.stepRefs.push({ name, path });
  return { step: name, set: [] };
}

function normaliseArc(raw: RawMap, path: string, ctx: ParseContext): Arc {
  checkKeys(raw, ARC_KEYS, path, ctx);
  const stepPath = keyPath(path, 'step');
  let step = '';
  if (isNonEmptyString(raw.step)) {
    step = raw.step;
    ctx.stepRefs.push({ name: step, path: stepPath });
  } else {
    ctx.problems.add(has(raw, 'step') ? stepPath : path, 'an arc needs a target "step"');
  }
  const arc: Arc = { step, set: has(raw, 'set') ? compileSet(raw.set, keyPath(path, 'set'), ctx.problems.report, 'ctx') : [] };
  const when = raw.when;
  if (typeof when === 'string' || typeof when === 'boolean') arc.when = when;
  else if (when !== undefined && when !== null) ctx.problems.add(keyPath(path, 'when'), '"when" must be a template or a boolean');
  if (raw.on === 'call.partial') arc.on = 'call.partial';
  else if (raw.on !== undefined && raw.on !== null && raw.on !== 'call.done') {
    ctx.problems.add(
      keyPath(path, 'on'),
      `"on" must be "call.partial" (once per streamed chunk) or "call.done" (the default), not ${JSON.stringify(raw.on)}`,
    );
  }
  return arc;
}
