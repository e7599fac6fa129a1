/**
 * What every renderer of playbook templates shares: a value is rendered
 * string by string, and a `when:` is a rendered string judged for truth.
 * A renderer only says how one template string renders (the engine itself,
 * or an inline slice of it, see inline-slice.ts).
 */
import { isConditionMet } from './evaluate-condition';
import { isPlainObject } from './python-values';

/** True when the string holds template syntax (`{{` or `{%`). */
export function isTemplate(value: string): boolean {
  return value.includes('{{') || value.includes('{%');
}

/** Whether each object or array a playbook holds has template syntax anywhere inside (see holdsTemplate). */
const templatesInside = new WeakMap<object, boolean>();

/**
 * True when `value` holds a template string anywhere (keys are not
 * rendered, so not looked at). A value without one renders to a copy of
 * itself whatever the scope, so its caller need not build a scope at all:
 * a loop body's static tool config, rendered once per row, is the case this
 * is for. The answer for an object is kept, so a body's spec is walked once
 * per frame (its objects are the frame's), not once per row.
 */
export function holdsTemplate(value: unknown): boolean {
  if (typeof value === 'string') return isTemplate(value);
  if (typeof value !== 'object' || value === null) return false;
  const known = templatesInside.get(value);
  if (known !== undefined) return known;
  const found = (Array.isArray(value) ? value : Object.values(value)).some(holdsTemplate);
  templatesInside.set(value, found);
  return found;
}

export abstract class TemplateRenderer {
  /**
   * A string that is exactly one `{{ expr }}` (surrounding whitespace aside)
   * returns the expression's value (list, object, number, bool, or null,
   * also when it is undefined); mixed text returns a string (an undefined
   * value prints as nothing); strings without template syntax and
   * non-strings are returned as they are. Throws TemplateError.
   */
  abstract renderString(template: string, scope: Record<string, unknown>): unknown;

  /** Deep-renders every string inside objects and arrays (keys are not rendered). */
  renderValue<T = unknown>(value: T, scope: Record<string, unknown>): unknown {
    if (typeof value === 'string') return this.renderString(value, scope);
    if (Array.isArray(value)) return value.map((item: unknown) => this.renderValue(item, scope));
    if (!isPlainObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const rendered = this.renderValue(value[key], scope);
      // A store is far cheaper than defining a property; only `__proto__` must be defined, to stay a key.
      if (key === '__proto__') Object.defineProperty(out, key, { value: rendered, enumerable: true, writable: true, configurable: true });
      else out[key] = rendered;
    }
    return out;
  }

  /**
   * `when:` truthiness. Absent means no condition (true); booleans are taken
   * as they are; strings are rendered, then judged by isConditionMet.
   */
  evaluateCondition(when: string | boolean | undefined, scope: Record<string, unknown>): boolean {
    if (when === undefined) return true;
    if (typeof when === 'boolean') return when;
    return isConditionMet(this.renderString(when, scope));
  }
}
