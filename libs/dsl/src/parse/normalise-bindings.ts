import type { JsonObject } from '../model';
import { pickAlias, type ParseContext } from './parse-context';
import { isRawMap, keyPath, toJsonObject, type RawMap } from './raw-shape';

/** `input:` (alias `args:`) bindings of a step or a task: a mapping, kept unrendered. */
export function normaliseBindings(raw: RawMap, path: string, ctx: ParseContext): JsonObject {
  const picked = pickAlias(raw, ['input', 'args'], path, ctx);
  if (!picked || picked.value === null) return {};
  if (!isRawMap(picked.value)) {
    ctx.problems.add(keyPath(path, picked.key), `"${picked.key}" must be a mapping`);
    return {};
  }
  return toJsonObject(picked.value);
}
