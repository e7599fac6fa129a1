import type { ProblemCollector } from './problem-collector';
import { has, keyPath, quoteList, type RawMap } from './raw-shape';

/** A name used somewhere that must exist elsewhere (a step target, a workbook entry). */
export interface Reference {
  name: string;
  path: string;
}

/** What the normalisers share while one document is parsed. */
export interface ParseContext {
  problems: ProblemCollector;
  /** `next` targets, checked against the step names once every step is read. */
  stepRefs: Reference[];
  /** `kind: workbook` task names, checked against `workbook:`. */
  workbookRefs: Reference[];
}

/** Reports every key of `raw` that `allowed` does not list. */
export function checkKeys(
  raw: RawMap,
  allowed: ReadonlySet<string>,
  path: string,
  ctx: ParseContext,
  hint?: (key: string) => string | undefined,
): void {
  for (const key of Object.keys(raw)) {
    if (allowed.has(key)) continue;
    const extra = hint?.(key) ?? suggest(key, allowed);
    ctx.problems.add(keyPath(path, key), `unknown key "${key}"${extra ? ` (${extra})` : ''}`, 'key');
  }
}

/**
 * The value of the first of `names` present in `raw`, reporting when more than
 * one spelling is given (`in` and `collection`).
 */
export function pickAlias(
  raw: RawMap,
  names: readonly string[],
  path: string,
  ctx: ParseContext,
): { key: string; value: unknown } | undefined {
  const present = names.filter((name) => has(raw, name));
  const [first, second] = present;
  if (first === undefined) return undefined;
  if (second !== undefined) {
    ctx.problems.add(keyPath(path, second), `${quoteList(present, 'and')} are aliases; give only one`, 'key');
  }
  return { key: first, value: raw[first] };
}

/** `did you mean "next"?` for a word one or two edits away from a known one. */
export function suggest(key: string, allowed: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= Math.min(2, Math.floor(key.length / 2)) ? `did you mean "${best}"?` : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
