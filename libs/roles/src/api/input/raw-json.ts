import { Allow } from 'class-validator';

/**
 * JSON a client or a worker sends as data (a workload, a result, credential
 * data) is kept as it came: class-transformer, which turns a body into its
 * DTO, skips keys named `constructor` and `__proto__` and throws on an
 * object whose `constructor` key is not a function, so a legitimate payload
 * such as `{"constructor": {...}}` answered 500 (issue 15 defect 10). Such
 * fields are marked `@RawJson()`: the validation pipe lifts them out before
 * the transform and puts them back, untouched, after it.
 */
export interface RawJsonOptions {
  /** The value must be a JSON object (otherwise 400 naming the field). */
  object?: boolean;
  /** The field may be absent. */
  optional?: boolean;
}

interface RawField extends RawJsonOptions {
  key: string;
}

const RAW_FIELDS = Symbol('noetl:rawJsonFields');
const NESTED_FIELDS = Symbol('noetl:rawJsonNested');

type Holder = { [RAW_FIELDS]?: RawField[]; [NESTED_FIELDS]?: { key: string; type: () => object }[] };

/** A field holding JSON data, kept exactly as it came. */
export function RawJson(options: RawJsonOptions = {}): PropertyDecorator {
  return (target, key) => {
    Allow()(target, key);
    const holder = target as Holder;
    holder[RAW_FIELDS] = [...(holder[RAW_FIELDS] ?? []), { key: String(key), ...options }];
  };
}

/** A field holding a DTO (or a list of them) that has `@RawJson` fields of its own. */
export function HoldsRawJson(type: () => object): PropertyDecorator {
  return (target, key) => {
    const holder = target as Holder;
    holder[NESTED_FIELDS] = [...(holder[NESTED_FIELDS] ?? []), { key: String(key), type }];
  };
}

/** A value lifted out, and where to put it back. */
export interface Lifted {
  path: (string | number)[];
  value: unknown;
}

export class RawJsonError extends Error {}

/**
 * A copy of `body` without the `@RawJson` fields of `metatype` (and of the
 * DTOs it holds), which are returned apart. Throws RawJsonError for a field
 * that must be an object and is not, or is missing and may not be.
 */
export function liftRawJson(body: unknown, metatype: unknown, lifted: Lifted[] = [], path: (string | number)[] = []): unknown {
  if (!isPlainObject(body) || typeof metatype !== 'function') return body;
  const prototype = metatype.prototype as Holder;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(body))
    Object.defineProperty(copy, key, { value: body[key], enumerable: true, writable: true, configurable: true });
  for (const field of prototype[RAW_FIELDS] ?? []) {
    const present = Object.prototype.hasOwnProperty.call(copy, field.key) && copy[field.key] !== undefined;
    if (!present) {
      if (!field.optional && field.object) throw new RawJsonError(`${describe([...path, field.key])} must be an object`);
      continue;
    }
    if (field.object && !isPlainObject(copy[field.key])) throw new RawJsonError(`${describe([...path, field.key])} must be an object`);
    lifted.push({ path: [...path, field.key], value: copy[field.key] });
    delete copy[field.key];
  }
  for (const { key, type } of prototype[NESTED_FIELDS] ?? []) {
    const value = copy[key];
    if (Array.isArray(value)) copy[key] = value.map((item, index) => liftRawJson(item, type(), lifted, [...path, key, index]));
    else copy[key] = liftRawJson(value, type(), lifted, [...path, key]);
  }
  return copy;
}

/** Puts the lifted values back into the transformed DTO, as own data properties (a `__proto__` key stays a key). */
export function restoreRawJson(dto: unknown, lifted: readonly Lifted[]): void {
  for (const { path, value } of lifted) {
    let node: unknown = dto;
    for (const step of path.slice(0, -1))
      node = typeof node === 'object' && node !== null ? (node as Record<string | number, unknown>)[step] : undefined;
    if (typeof node !== 'object' || node === null) continue;
    Object.defineProperty(node, path[path.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(path: (string | number)[]): string {
  return path
    .map((step) => (typeof step === 'number' ? `[${step}]` : step))
    .join('.')
    .replace(/\.\[/g, '[');
}
