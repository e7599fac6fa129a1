/**
 * The value a single-expression template hands out. Callers copy it into
 * plain JSON and events, so its size as they will see it (shared values
 * counted every time they appear) is charged to the render's budget first:
 * `[[x] * 1000000] * 1000000` is a few lists to the template and a trillion
 * items to the copy.
 */
import { isPlainObject, unwrapSafe } from './python-values';
import { renderBudget } from './render-budget';

/** No SafeString wrappers, no functions; undefined is null (Jinja2 renders it as nothing). */
export function exportValue(value: unknown): unknown {
  const v = unwrapSafe(value);
  if (v === undefined || typeof v === 'function') return null;
  if (typeof v === 'object' && v !== null) chargeExpandedSize(v);
  return v;
}

function chargeExpandedSize(value: unknown): void {
  const v = unwrapSafe(value);
  if (typeof v === 'string') {
    renderBudget().charge(v.length);
  } else if (Array.isArray(v)) {
    renderBudget().charge(v.length + 1);
    for (const item of v) if (typeof item === 'object' || typeof item === 'string') chargeExpandedSize(item);
  } else if (isPlainObject(v)) {
    const keys = Object.keys(v);
    renderBudget().charge(keys.length + 1);
    for (const key of keys) {
      const item = v[key];
      if (typeof item === 'object' || typeof item === 'string') chargeExpandedSize(item);
    }
  }
}
