import { canonicalJson } from '../canonical-json';
import type { Json } from '../event-payloads';

/** One value that differs between two states, at its dotted path. */
export interface StateChange {
  path: string;
  before?: Json;
  after?: Json;
}

/** What changed from `before` to `after` (two replays of one execution): the leaves and subtrees that differ, in path order. */
export function diffStates(before: Json | undefined, after: Json | undefined, path = ''): StateChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => diffStates(before[key], after[key], path ? `${path}.${key}` : key));
  }
  if (canonicalJson(before) === canonicalJson(after)) return [];
  return [{ path, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) }];
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
