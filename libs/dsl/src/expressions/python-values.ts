/**
 * Python (Jinja) value semantics for JSON-like values: truthiness, equality,
 * `str()`/`repr()`, ordering, membership, arithmetic and slicing. The compiled
 * templates call these instead of JavaScript's operators, so `[] or 'x'` is
 * 'x', `1 == '1'` is false and `{{ true }}` in text reads `True`. What they
 * build or walk is charged to the render's budget (render-budget.ts).
 */
import { baseRuntime } from './nunjucks-internals';
import { renderBudget } from './render-budget';
import { UndefinedValue } from './template-error';

export function hasOwn(obj: object, key: PropertyKey): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** An object literal or a null-prototype dictionary: what JSON parses into. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function isSafeString(value: unknown): boolean {
  return value instanceof baseRuntime.SafeString;
}

/** nunjucks' SafeString wrapper carries no meaning without autoescaping: unwrap it. */
export function unwrapSafe(value: unknown): unknown {
  return isSafeString(value) ? String(value) : value;
}

/** Whether a dict has a key, without listing them all. */
function hasAnyKey(value: Record<string, unknown>): boolean {
  for (const key in value) if (hasOwn(value, key)) return true;
  return false;
}

/** Python's bool(): None, False, 0, '', [] and {} are false. */
export function truthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'number':
      return value !== 0 && !Number.isNaN(value);
    case 'bigint':
      return value !== BigInt(0);
    case 'string':
      return value.length > 0;
    default:
      if (Array.isArray(value)) return value.length > 0;
      if (isSafeString(value)) return String(value).length > 0;
      if (isPlainObject(value)) return hasAnyKey(value);
      return true;
  }
}

function isNumeric(value: unknown): value is number | boolean {
  return typeof value === 'number' || typeof value === 'boolean';
}

/** Python's ==: deep for lists and dicts, True == 1, '1' != 1; undefined equals only undefined (Jinja2). */
export function pyEquals(a: unknown, b: unknown): boolean {
  renderBudget().charge(1);
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return false;
  if (isNumeric(a) && isNumeric(b)) return Number(a) === Number(b);
  if (isSafeString(a) || isSafeString(b)) return String(a) === String(b) && typeof unwrapSafe(a) === typeof unwrapSafe(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => pyEquals(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => hasOwn(b, k) && pyEquals(a[k], b[k]));
  }
  return false;
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  return String(value);
}

function reprString(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of value) {
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch < ' ' || ch === '\x7f') out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** Collects the pieces of a repr, charging each and failing as soon as the whole is over the string limit. */
class ReprWriter {
  text = '';
  private readonly budget = renderBudget();

  write(piece: string): void {
    this.budget.charge(piece.length);
    this.budget.joinedString(this.text.length + piece.length);
    this.text += piece;
  }
}

function writeRepr(value: unknown, out: ReprWriter): void {
  if (value === undefined) return out.write('None');
  if (typeof value === 'string' || isSafeString(value)) return out.write(reprString(String(value)));
  if (Array.isArray(value)) {
    out.write('[');
    value.forEach((item, i) => {
      if (i > 0) out.write(', ');
      writeRepr(item, out);
    });
    return out.write(']');
  }
  if (isPlainObject(value)) {
    out.write('{');
    Object.keys(value).forEach((key, i) => {
      out.write(i > 0 ? `, ${reprString(key)}: ` : `${reprString(key)}: `);
      writeRepr(value[key], out);
    });
    return out.write('}');
  }
  out.write(pyStr(value));
}

/** Python's repr(), used for values nested inside lists and dicts. */
export function pyRepr(value: unknown): string {
  const out = new ReprWriter();
  writeRepr(value, out);
  return out.text;
}

/** Python's str() as Jinja prints it: True/False/None, lists and dicts as repr; undefined prints nothing. */
export function pyStr(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return 'None';
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
      return value ? 'True' : 'False';
    case 'number':
      return formatNumber(value);
    case 'bigint':
      return value.toString();
    case 'function':
    case 'symbol':
      return '';
    default:
      if (value instanceof Date) return value.toISOString();
      if (Array.isArray(value) || isPlainObject(value)) return pyRepr(value);
      return String(value);
  }
}

function orderable(a: unknown, b: unknown): [number | string, number | string] | undefined {
  const x = unwrapSafe(a);
  const y = unwrapSafe(b);
  if (isNumeric(x) && isNumeric(y)) return [Number(x), Number(y)];
  if (typeof x === 'string' && typeof y === 'string') return [x, y];
  return undefined;
}

function lessThan(a: unknown, b: unknown): boolean {
  const pair = orderable(a, b);
  if (pair) return pair[0] < pair[1];
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEquals(a[i], b[i])) return lessThan(a[i], b[i]);
    }
    return a.length < b.length;
  }
  // Mixed types: keep JavaScript's answer (Python would raise TypeError).
  return (a as number) < (b as number);
}

function compareOnce(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==':
      return pyEquals(a, b);
    case '!=':
      return !pyEquals(a, b);
    case '===':
      return a === b;
    case '!==':
      return a !== b;
    case '<':
      return lessThan(a, b);
    case '>':
      return lessThan(b, a);
    case '<=':
      return lessThan(a, b) || pyEquals(a, b);
    case '>=':
      return lessThan(b, a) || pyEquals(a, b);
    default:
      throw new Error(`unknown comparison operator ${op}`);
  }
}

/** A (possibly chained) comparison: `compare(a, '<', b, '<=', c)` is `a < b and b <= c`. */
export function compare(first: unknown, ...rest: unknown[]): boolean {
  let left = first;
  for (let i = 0; i + 1 < rest.length; i += 2) {
    const right = rest[i + 1];
    if (!compareOnce(left, String(rest[i]), right)) return false;
    left = right;
  }
  return true;
}

/** Python's `item in container` for lists, strings and dicts; false when the container is missing. */
export function contains(item: unknown, container: unknown): boolean {
  const box = unwrapSafe(container);
  if (box === undefined || box === null) return false;
  if (typeof box === 'string') {
    renderBudget().charge(box.length);
    return box.includes(pyStr(unwrapSafe(item)));
  }
  if (Array.isArray(box)) return box.some((entry) => pyEquals(entry, item));
  if (typeof box === 'object' && (typeof item === 'string' || typeof item === 'number')) return hasOwn(box, item);
  return false;
}

export function add(a: unknown, b: unknown): unknown {
  if (a === undefined || b === undefined) throw new UndefinedValue('cannot add an undefined value');
  if (Array.isArray(a) && Array.isArray(b)) {
    renderBudget().list(a.length + b.length);
    return [...a, ...b];
  }
  if (isNumeric(a) && isNumeric(b)) return Number(a) + Number(b);
  const x = unwrapSafe(a);
  const y = unwrapSafe(b);
  if (typeof x === 'string' && typeof y === 'string') {
    renderBudget().joinedString(x.length + y.length);
    return x + y;
  }
  return (x as number) + (y as number);
}

function repeat<T>(items: T[], times: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < times; i++) out.push(...items);
  return out;
}

/** `*`: numbers multiply; a list or string times an integer repeats, within the list and string limits. */
export function multiply(a: unknown, b: unknown): unknown {
  const [seq, n] = typeof b === 'number' ? [unwrapSafe(a), b] : [unwrapSafe(b), a];
  if ((typeof seq === 'string' || Array.isArray(seq)) && typeof n === 'number' && Number.isInteger(n)) {
    const times = Math.max(0, n);
    if (typeof seq === 'string') {
      renderBudget().copiedString(seq.length * times);
      return seq.repeat(times);
    }
    renderBudget().list(seq.length * times);
    return repeat(seq, times);
  }
  return Number(a) * Number(b);
}

/** Python's modulo: the result takes the sign of the divisor. */
export function modulo(a: unknown, b: unknown): number {
  const x = Number(a);
  const y = Number(b);
  return x - y * Math.floor(x / y);
}

/** Python's `separator.join(texts)`, its length checked before it is built. */
export function joinTexts(texts: readonly string[], separator: string): string {
  const length = texts.reduce((total, text) => total + text.length, Math.max(0, texts.length - 1) * separator.length);
  renderBudget().copiedString(length);
  return texts.join(separator);
}

/** `~`: string concatenation with Python's str() (undefined is ''). */
export function concat(a: unknown, b: unknown): string {
  const x = pyStr(unwrapSafe(a));
  const y = pyStr(unwrapSafe(b));
  renderBudget().joinedString(x.length + y.length);
  return x + y;
}

function sliceBound(value: unknown, length: number, step: number, fallback: number): number {
  if (value === null || value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new Error('slice indices must be integers or none');
  }
  const lower = step > 0 ? 0 : -1;
  const upper = step > 0 ? length : length - 1;
  const index = value < 0 ? value + length : value;
  return Math.min(Math.max(index, lower), upper);
}

/** Python's `seq[start:stop:step]` for lists and strings; undefined for anything else. */
export function sliceValue(target: unknown, start: unknown, stop: unknown, step: unknown): unknown {
  const seq = unwrapSafe(target);
  if (typeof seq !== 'string' && !Array.isArray(seq)) return undefined;
  const by = step === null || step === undefined ? 1 : step;
  if (typeof by !== 'number' || !Number.isInteger(by)) throw new Error('slice indices must be integers or none');
  if (by === 0) throw new Error('slice step cannot be zero');
  renderBudget().charge(seq.length);
  const items: unknown[] = typeof seq === 'string' ? Array.from(seq) : seq;
  const len = items.length;
  const from = sliceBound(start, len, by, by > 0 ? 0 : len - 1);
  const to = sliceBound(stop, len, by, by > 0 ? len : -1);
  const out: unknown[] = [];
  for (let i = from; by > 0 ? i < to : i > to; i += by) out.push(items[i]);
  renderBudget().charge(out.length);
  return typeof seq === 'string' ? out.join('') : out;
}

/** `seq[i]` with Python's negative indices; undefined when out of range. */
export function indexSequence(seq: string | readonly unknown[], index: number): unknown {
  if (!Number.isInteger(index)) return undefined;
  if (typeof seq === 'string') renderBudget().charge(seq.length);
  const items = typeof seq === 'string' ? Array.from(seq) : seq;
  const at = index < 0 ? index + items.length : index;
  return at >= 0 && at < items.length ? items[at] : undefined;
}
