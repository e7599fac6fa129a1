/**
 * The filters of DSL.md §6 with Jinja's semantics (`'3.7' | int` is 3,
 * `true | string` is 'True', `none | default('x')` stays none), plus a few
 * common Jinja filters nunjucks lacks (`map`, `items`, `unique`, `min`,
 * `max`). They take any value and never touch a prototype, and charge what
 * they walk or build to the render's budget.
 */
import { positionalOnly, splitArgs } from './callables';
import { memberLookup, RenderContext } from './sandbox-runtime';
import { UndefinedValue } from './template-error';
import { add, compare, isPlainObject, isSafeString, joinTexts, pyEquals, pyStr, truthy, unwrapSafe } from './python-values';
import { lookupMethod } from './python-methods';
import { BudgetExceeded, renderBudget } from './render-budget';

export type TemplateFilter = (this: unknown, value: unknown, ...args: unknown[]) => unknown;

const INTEGER = /^[+-]?\d+(_\d+)*$/;
const DECIMAL = /^[+-]?((\d+(_\d+)*)?\.?\d+(_\d+)*|\d+(_\d+)*\.)([eE][+-]?\d+)?$/;
const SPECIAL_FLOATS: ReadonlyMap<string, number> = new Map([
  ['inf', Infinity],
  ['+inf', Infinity],
  ['-inf', -Infinity],
  ['infinity', Infinity],
  ['-infinity', -Infinity],
  ['nan', NaN],
  ['+nan', NaN],
  ['-nan', NaN],
]);

/** Python's float(x) for the values templates see; undefined when it would raise. */
function parseFloatLike(value: unknown): number | undefined {
  const v = unwrapSafe(value);
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'string') return undefined;
  const text = v.trim();
  if (DECIMAL.test(text)) return Number(text.replace(/_/g, ''));
  return SPECIAL_FLOATS.get(text.toLowerCase());
}

/** A filter's input, which must not be undefined (Jinja2's Undefined fails there). */
function required(value: unknown, filter: string): unknown {
  if (value === undefined) throw new UndefinedValue(`${filter}: the value is undefined`);
  return value;
}

/** Jinja's int: int(x), else int(float(x)), else the default (0). */
function toInt(value: unknown, ...args: unknown[]): unknown {
  required(value, 'int');
  const { positional, keywords } = splitArgs(args);
  const fallback = 'default' in keywords ? keywords['default'] : (positional[0] ?? 0);
  const base = Number(('base' in keywords ? keywords['base'] : positional[1]) ?? 10);
  const v = unwrapSafe(value);
  if (typeof v === 'string' && base !== 10) {
    const prefix = base === 16 ? /^0x/ : base === 8 ? /^0o/ : base === 2 ? /^0b/ : /^(?!)/;
    const digits = v.trim().toLowerCase().replace(/_/g, '').replace(prefix, '');
    const parsed = digits === '' ? NaN : parseInt(digits, base);
    return Number.isNaN(parsed) || parsed.toString(base) !== digits.replace(/^0+(?=.)/, '') ? fallback : parsed;
  }
  if (typeof v === 'string' && INTEGER.test(v.trim())) return Number(v.trim().replace(/_/g, ''));
  const n = parseFloatLike(v);
  return n === undefined || !Number.isFinite(n) ? fallback : Math.trunc(n);
}

function toFloat(value: unknown, ...args: unknown[]): unknown {
  required(value, 'float');
  const { positional, keywords } = splitArgs(args);
  const fallback = 'default' in keywords ? keywords['default'] : (positional[0] ?? 0);
  const n = parseFloatLike(value);
  return n === undefined ? fallback : n;
}

function defaultFilter(value: unknown, ...args: unknown[]): unknown {
  const { positional, keywords } = splitArgs(args);
  const fallback = 'default_value' in keywords ? keywords['default_value'] : (positional[0] ?? '');
  const boolean = 'boolean' in keywords ? keywords['boolean'] : positional[1];
  if (value === undefined) return fallback;
  return truthy(boolean) && !truthy(value) ? fallback : value;
}

function length(value: unknown): number {
  const v = unwrapSafe(value);
  if (v === undefined || v === null) return 0;
  if (typeof v === 'string') {
    renderBudget().charge(v.length);
    return Array.from(v).length;
  }
  if (Array.isArray(v)) return v.length;
  if (typeof v === 'object') {
    const keys = Object.keys(v).length;
    renderBudget().charge(keys);
    return keys;
  }
  throw new Error(`length: a ${typeof v} has no length`);
}

/**
 * JSON text of the value. Its size is counted as JSON.stringify walks it
 * (strings by length, anything else as a few characters), so a value that
 * repeats one large value many times fails before its text is built.
 */
function toJson(value: unknown, ...args: unknown[]): string {
  const { positional, keywords } = splitArgs(args);
  const indent = 'indent' in keywords ? keywords['indent'] : positional[0];
  const spaces = typeof indent === 'number' || typeof indent === 'string' ? indent : undefined;
  const budget = renderBudget();
  let size = 0;
  const replacer = (key: string, v: unknown): unknown => {
    const plain = isSafeString(v) ? String(v) : v;
    const units = key.length + (typeof plain === 'string' ? plain.length : 0) + 4;
    size += units;
    budget.charge(units);
    budget.joinedString(size);
    return plain;
  };
  try {
    return JSON.stringify(required(value, 'tojson'), replacer, spaces) ?? 'null';
  } catch (error) {
    if (error instanceof BudgetExceeded || error instanceof UndefinedValue) throw error;
    throw new Error(`tojson: value is not serialisable (${error instanceof Error ? error.message : String(error)})`);
  }
}

function fromJson(value: unknown): unknown {
  const v = unwrapSafe(value);
  if (typeof v !== 'string') return v;
  renderBudget().charge(v.length);
  try {
    return JSON.parse(v) as unknown;
  } catch (error) {
    throw new Error(`fromjson: invalid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** Python's str.replace on str(value). */
function replace(value: unknown, old: unknown, replacement: unknown, count?: unknown): unknown {
  const method = lookupMethod(pyStr(unwrapSafe(value)), 'replace');
  return method?.(pyStr(unwrapSafe(old)), pyStr(unwrapSafe(replacement)), ...(count === undefined ? [] : [count]));
}

/** The items a filter iterates: list items, string characters, dict keys (none for None; undefined fails). */
function iterate(value: unknown, filter: string): unknown[] {
  const v = unwrapSafe(required(value, filter));
  if (v === null) return [];
  const items = Array.isArray(v) ? v : typeof v === 'string' ? Array.from(v) : isPlainObject(v) ? Object.keys(v) : undefined;
  if (items === undefined) throw new Error(`${filter}: a ${typeof v} is not iterable`);
  renderBudget().charge(items.length);
  return items;
}

function first(value: unknown): unknown {
  return iterate(value, 'first')[0];
}

function last(value: unknown): unknown {
  const items = iterate(value, 'last');
  return items[items.length - 1];
}

function attribute(item: unknown, path: unknown): unknown {
  if (typeof path === 'number') return memberLookup(item, path);
  return String(path)
    .split('.')
    .reduce<unknown>((obj, part) => memberLookup(obj, /^\d+$/.test(part) ? Number(part) : part), item);
}

function join(value: unknown, ...args: unknown[]): string {
  const { positional, keywords } = splitArgs(args);
  const separator = pyStr(unwrapSafe(('d' in keywords ? keywords['d'] : positional[0]) ?? ''));
  const attr = 'attribute' in keywords ? keywords['attribute'] : positional[1];
  const texts = iterate(value, 'join').map((item) => pyStr(unwrapSafe(attr === undefined || attr === null ? item : attribute(item, attr))));
  return joinTexts(texts, separator);
}

function sum(value: unknown, ...args: unknown[]): unknown {
  const { positional, keywords } = splitArgs(args);
  const attr = 'attribute' in keywords ? keywords['attribute'] : positional[0];
  const start = ('start' in keywords ? keywords['start'] : positional[1]) ?? 0;
  return iterate(value, 'sum').reduce<unknown>(
    (total, item) => add(total, attr === undefined || attr === null ? item : attribute(item, attr)),
    start,
  );
}

function mapFilter(this: unknown, value: unknown, ...args: unknown[]): unknown[] {
  const { positional, keywords } = splitArgs(args);
  const items = iterate(value, 'map');
  if ('attribute' in keywords) {
    return items.map((item) => {
      const found = attribute(item, keywords['attribute']);
      return found === undefined && 'default' in keywords ? keywords['default'] : found;
    });
  }
  const [name, ...rest] = positional;
  if (!(this instanceof RenderContext)) throw new Error('map: expected a filter name or attribute=');
  const filter = this.filter(name);
  renderBudget().charge(items.length);
  return items.map((item) => filter.call(this, item, ...rest));
}

/** Jinja's select/reject/selectattr/rejectattr: keep items whose (attribute's) test result is `keep`. */
function selecting(name: string, keep: boolean, byAttribute: boolean): TemplateFilter {
  return function select(this: unknown, value: unknown, ...args: unknown[]): unknown[] {
    const positional = positionalOnly(name, args);
    const [attr] = byAttribute ? positional.splice(0, 1) : [undefined];
    const [testName, ...testArgs] = positional;
    const context = this instanceof RenderContext ? this : undefined;
    const test = testName === undefined ? undefined : context?.test(testName);
    if (testName !== undefined && !test) throw new Error(`${name}: tests need a render context`);
    return iterate(value, name).filter((item) => {
      const subject = byAttribute ? attribute(item, attr) : item;
      const verdict = test ? test.call(context, subject, ...testArgs) === true : truthy(subject);
      return verdict === keep;
    });
  };
}

function items(value: unknown): unknown[] {
  const v = unwrapSafe(required(value, 'items'));
  if (v === null) return [];
  if (!isPlainObject(v)) throw new Error('items: expected a mapping');
  const keys = Object.keys(v);
  renderBudget().list(keys.length);
  return keys.map((k) => [k, v[k]]);
}

function unique(value: unknown): unknown[] {
  const out: unknown[] = [];
  for (const item of iterate(value, 'unique')) if (!out.some((seen) => pyEquals(seen, item))) out.push(item);
  return out;
}

function extreme(name: string, pickLarger: boolean): TemplateFilter {
  return (value, ...args) => {
    const { keywords } = splitArgs(args);
    const key = (item: unknown): unknown => unwrapSafe('attribute' in keywords ? attribute(item, keywords['attribute']) : item);
    return iterate(value, name).reduce<unknown>((best, item) => {
      if (best === undefined) return item;
      const better = pickLarger ? compare(key(item), '>', key(best)) : compare(key(item), '<', key(best));
      return better ? item : best;
    }, undefined);
  };
}

function utf8ToBase64(value: unknown): string {
  const text = pyStr(unwrapSafe(value));
  // At most 3 UTF-8 bytes per UTF-16 unit, 4 base64 characters per 3 bytes.
  renderBudget().copiedString(text.length * 4);
  return Buffer.from(text, 'utf8').toString('base64');
}

function base64ToUtf8(value: unknown): string {
  const raw = pyStr(unwrapSafe(value));
  renderBudget().charge(raw.length);
  const text = raw.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) throw new Error('b64decode: invalid base64 input');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'base64'));
  } catch {
    throw new Error('b64decode: the decoded bytes are not UTF-8 text');
  }
}

const stringFilter =
  (fn: (s: string) => string): TemplateFilter =>
  (value) => {
    const text = pyStr(unwrapSafe(value));
    renderBudget().charge(text.length);
    return fn(text);
  };

/** Our filters; they replace nunjucks' built-ins of the same name. */
export const FILTERS: ReadonlyMap<string, TemplateFilter> = new Map<string, TemplateFilter>([
  ['int', toInt],
  ['float', toFloat],
  ['string', (value) => pyStr(unwrapSafe(value))],
  ['length', length],
  ['count', length],
  ['default', defaultFilter],
  ['d', defaultFilter],
  ['tojson', toJson],
  ['fromjson', fromJson],
  ['lower', stringFilter((s) => s.toLowerCase())],
  ['upper', stringFilter((s) => s.toUpperCase())],
  ['replace', replace],
  ['first', first],
  ['last', last],
  ['join', join],
  ['b64encode', utf8ToBase64],
  ['b64decode', base64ToUtf8],
  ['attr', (value, name) => memberLookup(value, name)],
  ['sum', sum],
  ['map', mapFilter],
  ['items', items],
  ['unique', unique],
  ['min', extreme('min', false)],
  ['max', extreme('max', true)],
  ['list', (value) => iterate(value, 'list')],
  ['select', selecting('select', true, false)],
  ['reject', selecting('reject', false, false)],
  ['selectattr', selecting('selectattr', true, true)],
  ['rejectattr', selecting('rejectattr', false, true)],
  ['bool', (value) => truthy(value)],
]);

/** nunjucks built-ins kept as they are (their results unwrapped from SafeString). */
export const KEPT_BUILTIN_FILTERS: readonly string[] = [
  'abs',
  'batch',
  'dictsort',
  'dump',
  'groupby',
  'reverse',
  'round',
  'slice',
  'sort',
  'urlencode',
];

/**
 * Filters whose input must not be undefined (the compiler checks it and names
 * the expression): those that iterate it, do arithmetic on it, serialise it
 * or read an attribute of it. The others treat it as Jinja2 does: `length`
 * is 0, `default` replaces it, the string filters see ''.
 */
export const FILTERS_NEEDING_A_VALUE: ReadonlySet<string> = new Set([
  'join',
  'map',
  'select',
  'reject',
  'selectattr',
  'rejectattr',
  'list',
  'first',
  'last',
  'unique',
  'sum',
  'min',
  'max',
  'items',
  'sort',
  'reverse',
  'batch',
  'slice',
  'groupby',
  'dictsort',
  'int',
  'float',
  'abs',
  'round',
  'tojson',
  'dump',
  'attr',
]);

/** nunjucks built-ins that expect a string: given str(value) first, as Jinja does. */
export const STRING_BUILTIN_FILTERS: readonly string[] = [
  'capitalize',
  'center',
  'escape',
  'e',
  'forceescape',
  'indent',
  'nl2br',
  'safe',
  'striptags',
  'title',
  'trim',
  'truncate',
  'urlize',
  'wordcount',
];

/** The size of a built-in filter's input. */
function inputSize(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  return isPlainObject(value) ? Object.keys(value).length : 1;
}

/** Built-ins that sort with a comparator written in JavaScript: n log n calls, each a few units. */
const SORTING_BUILTINS: ReadonlySet<string> = new Set(['sort', 'dictsort', 'groupby']);

/** The work a built-in does on its input: a few passes, or a sort. */
function builtinWork(name: string, input: unknown): number {
  const n = inputSize(input);
  return SORTING_BUILTINS.has(name) ? 2 * n * Math.max(1, Math.ceil(Math.log2(n))) : n;
}

function lineCount(value: unknown): number {
  if (typeof value !== 'string') return 1;
  let lines = 1;
  for (let at = value.indexOf('\n'); at >= 0; at = value.indexOf('\n', at + 1)) lines += 1;
  return lines;
}

/** Built-ins whose size argument (not their input) decides how much they build: `batch(n, fill)`, `center(width)`. */
const SIZE_ARGUMENTS: ReadonlyMap<string, (input: unknown, size: unknown) => void> = new Map([
  ['batch', (_input, size) => renderBudget().list(Number(size) || 0)],
  ['slice', (_input, size) => renderBudget().list(Number(size) || 0)],
  ['center', (_input, width) => renderBudget().copiedString(Number(width) || 0)],
  ['indent', (input, width) => renderBudget().copiedString(inputSize(input) + lineCount(input) * (Number(width) || 4))],
]);

/** Wraps a nunjucks built-in: optional str() of the input, SafeString unwrapped from the output, the work charged. */
export function adaptBuiltin(name: string, builtin: TemplateFilter, stringInput: boolean): TemplateFilter {
  const sizeCheck = SIZE_ARGUMENTS.get(name);
  return function adapted(this: unknown, value: unknown, ...args: unknown[]): unknown {
    const input = stringInput ? pyStr(unwrapSafe(value)) : unwrapSafe(value);
    renderBudget().charge(builtinWork(name, input));
    sizeCheck?.(input, args[0]);
    return unwrapSafe(builtin.call(this, input, ...args));
  };
}
