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
      Object.defineProperty(out, key, {
        value: this.renderValue(value[key], scope), enumerable: true, writable: true, configurable: true,
      });
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
