/**
 * How a rendered `when:` is judged. Values follow Python truthiness (none,
 * false, 0, '', [] and {} are false); rendered text is false when it reads
 * '', false/False, 0, none/None, null or undefined (RESULT_SHAPES §11).
 */
import { truthy, unwrapSafe } from './python-values';

const FALSE_TEXT: ReadonlySet<string> = new Set(['', 'false', '0', 'none', 'null', 'undefined']);

export function isConditionMet(value: unknown): boolean {
  const v = unwrapSafe(value);
  if (typeof v === 'string') return !FALSE_TEXT.has(v.trim().toLowerCase());
  return truthy(v);
}
