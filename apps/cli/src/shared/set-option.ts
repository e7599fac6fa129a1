import type { JsonObject, Json } from '@noetl/event-kernel';
import { type Command, InvalidArgumentError } from 'commander';

/** Key segments that would reach an object's prototype instead of a plain field. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * Adds one `k=v` pair to a payload and returns the new payload (the old one is
 * not changed). A dotted key makes nested objects (`a.b=1` -> `{a: {b: 1}}`);
 * the value is JSON when it parses as JSON (`n=3`, `flag=true`,
 * `list=[1,2]`), else the text as is. A later pair wins over an earlier one.
 */
export function addSetPair(pair: string, payload: JsonObject = {}): JsonObject {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got "${pair}"`);
  const key = pair.slice(0, eq);
  const segments = key.split('.');
  if (segments.some((s) => s === '')) throw new InvalidArgumentError(`"${key}" has an empty segment`);
  const forbidden = segments.find((s) => FORBIDDEN_SEGMENTS.has(s));
  if (forbidden) throw new InvalidArgumentError(`"${key}": "${forbidden}" cannot be a key`);
  return assign(payload, segments, parseValue(pair.slice(eq + 1)), key);
}

function assign(target: JsonObject, [head, ...rest]: string[], value: Json, key: string): JsonObject {
  if (head === undefined) return target;
  if (rest.length === 0) return { ...target, [head]: value };
  const existing = target[head];
  if (existing !== undefined && !isObject(existing)) {
    throw new InvalidArgumentError(`"${key}" goes inside "${head}", which is already set to ${JSON.stringify(existing)}`);
  }
  return { ...target, [head]: assign(existing ?? {}, rest, value, key) };
}

function parseValue(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `--set k=v`, repeatable; the command's `set` option is the assembled payload. */
export function addSetOption(command: Command): Command {
  return command.option('--set <key=value>', 'payload value (repeatable; dotted keys nest, JSON values are parsed)', addSetPair);
}
