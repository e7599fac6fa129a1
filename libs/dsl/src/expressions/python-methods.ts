/**
 * The Python methods templates may call on values: `d.get('k')`, `d.items()`,
 * `s.startswith('x')`, `s.split(',')`, `rows.index(x)`. They are our own pure
 * functions, looked up in fixed tables (never on the value's prototype), and
 * none mutates its receiver. A dict's own key wins over a method of the same
 * name, so `{{ page.items }}` reads the data. A call charges the render's
 * budget for its receiver (each method walks it at most a few times).
 */
import { markCallable, positionalOnly, type TemplateFunction } from './callables';
import { isPlainObject, joinTexts, pyEquals, pyStr, unwrapSafe } from './python-values';
import { renderBudget } from './render-budget';

type Method<T> = (self: T, args: unknown[]) => unknown;

function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Error(`${what} must be a string`);
  return value;
}

function optionalInt(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`${what} must be an integer`);
  return value;
}

/** Python's str.split: no separator splits on whitespace runs; maxsplit keeps the remainder. */
function split(s: string, sep: string | undefined, maxsplit: number): string[] {
  const limit = maxsplit < 0 ? Infinity : maxsplit;
  if (sep === undefined) {
    const out: string[] = [];
    let rest = s.replace(/^\s+/, '');
    while (rest.length > 0) {
      if (out.length >= limit) {
        out.push(rest.replace(/\s+$/, ''));
        break;
      }
      const m = /\s+/.exec(rest);
      if (!m) {
        out.push(rest);
        break;
      }
      out.push(rest.slice(0, m.index));
      rest = rest.slice(m.index + m[0].length);
    }
    return out;
  }
  if (sep === '') throw new Error('empty separator');
  const out: string[] = [];
  let from = 0;
  while (out.length < limit) {
    const at = s.indexOf(sep, from);
    if (at < 0) break;
    out.push(s.slice(from, at));
    from = at + sep.length;
  }
  out.push(s.slice(from));
  return out;
}

function stripSet(chars: string | undefined): (ch: string) => boolean {
  return chars === undefined ? (ch) => /\s/.test(ch) : (ch) => chars.includes(ch);
}

function strip(s: string, chars: string | undefined, left: boolean, right: boolean): string {
  const drop = stripSet(chars);
  const items = Array.from(s);
  let from = 0;
  let to = items.length;
  while (left && from < to && drop(items[from] ?? '')) from++;
  while (right && to > from && drop(items[to - 1] ?? '')) to--;
  return items.slice(from, to).join('');
}

function affixes(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) return value;
  throw new Error('prefix must be a string or a list of strings');
}

function window(s: string, start: unknown, end: unknown): string {
  const from = optionalInt(start, 'start');
  const to = optionalInt(end, 'end');
  return from === undefined && to === undefined ? s : s.slice(from, to);
}

/** Python's str.replace; the result's length is checked before it is built. */
function replaceAll(s: string, old: string, replacement: string, count: number): string {
  const limit = count < 0 ? Infinity : count;
  if (old === '') {
    const chars = Array.from(s);
    renderBudget().copiedString(s.length + Math.min(limit, chars.length + 1) * replacement.length);
    let out = '';
    let done = 0;
    for (let i = 0; i <= chars.length; i++) {
      if (done < limit) {
        out += replacement;
        done++;
      }
      out += chars[i] ?? '';
    }
    return out;
  }
  return joinTexts(split(s, old, limit === Infinity ? -1 : limit), replacement);
}

function countOccurrences(s: string, sub: string): number {
  if (sub === '') return Array.from(s).length + 1;
  return s.split(sub).length - 1;
}

function capitalize(word: string): string {
  const [first = '', ...rest] = Array.from(word);
  return first.toUpperCase() + rest.join('').toLowerCase();
}

const STRING_METHODS = new Map<string, Method<string>>([
  ['startswith', (s, [prefix, start, end]) => affixes(prefix).some((p) => window(s, start, end).startsWith(p))],
  ['endswith', (s, [suffix, start, end]) => affixes(suffix).some((p) => window(s, start, end).endsWith(p))],
  [
    'split',
    (s, [sep, maxsplit]) => {
      const parts = split(s, optionalString(sep, 'separator'), optionalInt(maxsplit, 'maxsplit') ?? -1);
      renderBudget().list(parts.length);
      return parts;
    },
  ],
  ['strip', (s, [chars]) => strip(s, optionalString(chars, 'chars'), true, true)],
  ['lstrip', (s, [chars]) => strip(s, optionalString(chars, 'chars'), true, false)],
  ['rstrip', (s, [chars]) => strip(s, optionalString(chars, 'chars'), false, true)],
  ['upper', (s) => s.toUpperCase()],
  ['lower', (s) => s.toLowerCase()],
  ['title', (s) => s.toLowerCase().replace(/\p{L}+/gu, capitalize)],
  ['capitalize', (s) => capitalize(s)],
  ['replace', (s, [old, replacement, count]) => replaceAll(s, pyStr(old), pyStr(replacement), optionalInt(count, 'count') ?? -1)],
  [
    'join',
    (s, [items]) => {
      const list = unwrapSafe(items);
      if (typeof list === 'string') return joinTexts(Array.from(list), s);
      if (!Array.isArray(list)) throw new Error('join() argument must be a list');
      return joinTexts(
        list.map((item) => pyStr(unwrapSafe(item))),
        s,
      );
    },
  ],
  ['find', (s, [sub]) => s.indexOf(pyStr(sub))],
  ['count', (s, [sub]) => countOccurrences(s, pyStr(sub))],
  ['isdigit', (s) => /^\d+$/.test(s)],
]);

const DICT_METHODS = new Map<string, Method<Record<string, unknown>>>([
  [
    'get',
    (d, [key, fallback = null]) => {
      const k = typeof key === 'number' ? String(key) : key;
      return typeof k === 'string' && Object.prototype.hasOwnProperty.call(d, k) ? d[k] : fallback;
    },
  ],
  ['keys', (d) => Object.keys(d)],
  ['values', (d) => Object.keys(d).map((k) => d[k])],
  ['items', (d) => Object.keys(d).map((k) => [k, d[k]])],
]);

const LIST_METHODS = new Map<string, Method<readonly unknown[]>>([
  [
    'index',
    (list, [item]) => {
      const at = list.findIndex((entry) => pyEquals(entry, item));
      if (at < 0) throw new Error(`${pyStr(item)} is not in list`);
      return at;
    },
  ],
  ['count', (list, [item]) => list.filter((entry) => pyEquals(entry, item)).length],
]);

/** What a call walks: a string's characters, a list's items, a dict's keys (one key for `get`). */
function receiverSize(self: unknown, name: string): number {
  if (typeof self === 'string' || Array.isArray(self)) return self.length;
  return name === 'get' || !isPlainObject(self) ? 1 : Object.keys(self).length;
}

function bind<T>(name: string, method: Method<T>, self: T): TemplateFunction {
  return markCallable((...args: unknown[]) => {
    renderBudget().charge(receiverSize(self, name));
    return method(self, positionalOnly(name, args));
  });
}

/** The method `name` of `value` as a callable bound to it, or undefined. */
export function lookupMethod(value: unknown, name: string): TemplateFunction | undefined {
  if (typeof value === 'string') {
    const method = STRING_METHODS.get(name);
    return method && bind(name, method, value);
  }
  if (Array.isArray(value)) {
    const method = LIST_METHODS.get(name);
    return method && bind(name, method, value);
  }
  if (isPlainObject(value)) {
    const method = DICT_METHODS.get(name);
    return method && bind(name, method, value);
  }
  return undefined;
}
