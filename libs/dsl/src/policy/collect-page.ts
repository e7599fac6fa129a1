import type { Collect } from '../model';
import { deepMerge, isRecord, readPath } from './policy-values';

/**
 * Adds one page to the running collection (`collected` is undefined before
 * the first page). The page is `response`, or the value at `collect.path`
 * (dotted, e.g. `data.items`; a missing path adds nothing).
 * - append (the default): lists are concatenated, any other value is pushed;
 * - replace: the page replaces the collection (polling keeps the latest);
 * - merge: mappings are deep-merged, lists concatenated, otherwise the page replaces.
 * Inputs are not mutated.
 */
export function collectPage(collected: unknown, response: unknown, collect: Collect | undefined): unknown {
  const page = collect?.path === undefined ? response : readPath(response, collect.path);
  switch (collect?.strategy ?? 'append') {
    case 'replace':
      return page;
    case 'merge':
      return mergePage(collected, page);
    case 'append':
      return appendPage(collected, page);
  }
}

function appendPage(collected: unknown, page: unknown): unknown[] {
  const base = collected === undefined || collected === null ? [] : Array.isArray(collected) ? collected : [collected];
  if (page === undefined) return [...base];
  return Array.isArray(page) ? [...base, ...page] : [...base, page];
}

function mergePage(collected: unknown, page: unknown): unknown {
  if (page === undefined) return collected;
  if (collected === undefined || collected === null) return page;
  if (Array.isArray(collected) && Array.isArray(page)) return [...collected, ...page];
  if (isRecord(collected) && isRecord(page)) return deepMerge(collected, page);
  return page;
}
