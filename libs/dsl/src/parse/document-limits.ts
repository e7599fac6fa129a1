import { isAlias, isMap, isPair, isScalar, isSeq, type Node } from 'yaml';
import type { Problem } from '../model';
import { indexPath, keyPath } from './raw-shape';
import type { YamlSource } from './source-positions';

/**
 * How big a playbook may be. Registration parses on the API's event loop, so
 * these keep one hostile document (issue 11 item 6) from stalling it or
 * exhausting the stack: a 2 MB playbook took 2.8 s to parse, a 512 KiB flow
 * list of 260,000 numbers 1.7 s, and a block nested 10,000 deep overflowed
 * the stack of the recursive checks. The YAML parser costs about 6 us per
 * value, so the values are counted (roughly, from the text) before it runs.
 */
export const DOCUMENT_LIMITS = {
  /** Characters of YAML text. */
  chars: 512 * 1024,
  /** Values (list items, keys) the text holds, counted by their indicators. */
  values: 50_000,
  /** Levels of nested mappings and sequences. */
  depth: 64,
  /** Steps in `workflow`. */
  steps: 10_000,
} as const;

/** What opens a value in YAML: a flow separator or opener, a key's `: `, a block item's `- ` (an over-count is fine). */
const VALUE_INDICATORS = /[,[{]|:[ \t\r\n]|-[ \t\r\n]/g;

/** Before parsing: the text's size and how many values it holds. */
export function textProblems(text: string): Problem[] {
  if (text.length > DOCUMENT_LIMITS.chars) {
    return [{ path: '', line: 1, column: 1, message: `the playbook is ${text.length} characters; the limit is ${DOCUMENT_LIMITS.chars}` }];
  }
  let values = 0;
  VALUE_INDICATORS.lastIndex = 0;
  while (VALUE_INDICATORS.exec(text) !== null)
    if (++values > DOCUMENT_LIMITS.values) {
      return [{ path: '', line: 1, column: 1, message: `the playbook holds more than ${DOCUMENT_LIMITS.values} values` }];
    }
  return [];
}

/**
 * After parsing, before anything walks the document: its depth, its step
 * count, and text that no database stores (a NUL character, a lone UTF-16
 * surrogate; YAML escapes such as `"\0"` and `"\ud800"` make them). Walked
 * with an explicit stack, so depth itself cannot overflow it. Stops at the
 * first problem of each kind.
 */
export function documentProblems(source: YamlSource): Problem[] {
  const problems: Problem[] = [];
  const at = (node: Node | null | undefined): { line: number; column: number } => source.positionOf(node?.range?.[0] ?? 0);
  let tooDeep = false;
  let badText = false;
  const stack: { node: unknown; path: string; depth: number }[] = [{ node: source.root, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { node, path, depth } = stack.pop()!;
    if (isAlias(node)) continue; // its anchor is walked where it stands
    if (isScalar(node)) {
      if (!badText && typeof node.value === 'string' && !storable(node.value)) {
        badText = true;
        problems.push({ path, ...at(node), message: 'text may not hold a NUL character or a lone UTF-16 surrogate' });
      }
      continue;
    }
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth >= DOCUMENT_LIMITS.depth) {
      if (!tooDeep) problems.push({ path, ...at(node), message: `the document nests deeper than ${DOCUMENT_LIMITS.depth} levels` });
      tooDeep = true;
      continue;
    }
    if (isSeq(node)) {
      node.items.forEach((item, index) => stack.push({ node: item, path: indexPath(path, index), depth: depth + 1 }));
      if (path === 'workflow' && node.items.length > DOCUMENT_LIMITS.steps) {
        problems.push({ path, ...at(node), message: `workflow has ${node.items.length} steps; the limit is ${DOCUMENT_LIMITS.steps}` });
      }
      continue;
    }
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!badText && !storable(key)) {
        badText = true;
        problems.push({ path, ...at(pair.key as Node), message: 'a key may not hold a NUL character or a lone UTF-16 surrogate' });
      }
      stack.push({ node: pair.value, path: keyPath(path, key), depth: depth + 1 });
    }
  }
  return problems;
}

/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text PostgreSQL stores (text and jsonb refuse NUL and lone surrogates). */
export function storable(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}
