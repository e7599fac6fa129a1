import { SIGNAL_NAME, type Json, type JsonObject, type ToolKind } from '../model';
import type { ParseContext } from './parse-context';
import { keyPath } from './raw-shape';

interface Requirement {
  /** At least one of these keys must hold a value. */
  anyOf: readonly string[];
  message: string;
}

/** Required keys per tool kind (DSL.md s3), checked after aliases are resolved. */
const REQUIRED: Readonly<Record<ToolKind, Requirement | undefined>> = {
  http: { anyOf: ['url'], message: 'http tool needs "url"' },
  postgres: { anyOf: ['query', 'command', 'commands'], message: 'postgres tool needs SQL in "query", "command" or "commands"' },
  python: { anyOf: ['code'], message: 'python tool needs "code" (or "script.source.code")' },
  javascript: { anyOf: ['code'], message: 'javascript tool needs "code"' },
  playbook: { anyOf: ['path'], message: 'playbook tool needs "path"' },
  workbook: { anyOf: ['name'], message: 'workbook tool needs "name" (a workbook entry)' },
  sleep: { anyOf: ['seconds', 'until'], message: 'sleep tool needs "seconds" or "until"' },
  wait: { anyOf: ['signal'], message: 'wait tool needs "signal" (the name of the signal to wait for)' },
  noop: undefined,
};

/** Optional keys whose value is checked when given, per kind. */
const OPTIONAL: Readonly<Partial<Record<ToolKind, readonly string[]>>> = { wait: ['timeout', 'when'] };

/** What a key's value must be, when given. */
const VALUE_CHECKS: Readonly<Record<string, { test: (v: Json) => boolean; expected: string } | undefined>> = {
  url: { test: isString, expected: 'a string' },
  query: { test: isString, expected: 'a string' },
  command: { test: isString, expected: 'a string' },
  commands: { test: (v) => isString(v) || (Array.isArray(v) && v.every(isString)), expected: 'a string or a list of strings' },
  code: { test: isString, expected: 'a string' },
  path: { test: isString, expected: 'a string' },
  name: { test: isString, expected: 'a string' },
  method: { test: isString, expected: 'a string' },
  seconds: { test: (v) => (typeof v === 'number' && v >= 0) || isString(v), expected: 'a non-negative number or a template' },
  until: { test: isString, expected: 'a string' },
  signal: { test: (v) => isString(v) && SIGNAL_NAME.test(v), expected: 'a signal name: letters, digits, "_", "-", ".", ":" (no template)' },
  timeout: { test: (v) => (typeof v === 'number' && v >= 0) || isString(v), expected: 'a non-negative number of seconds or a template' },
  when: { test: (v) => isString(v) || typeof v === 'boolean', expected: 'a condition template or a boolean' },
};

export function checkRequiredKeys(kind: ToolKind, config: JsonObject, path: string, ctx: ParseContext): void {
  const requirement = REQUIRED[kind];
  if (requirement && !requirement.anyOf.some((key) => isPresent(config[key]))) {
    ctx.problems.add(path, requirement.message);
  }
  for (const key of [...(requirement?.anyOf ?? []), ...(OPTIONAL[kind] ?? []), 'method']) {
    const value = config[key];
    const check = VALUE_CHECKS[key];
    if (isPresent(value) && check && !check.test(value)) {
      ctx.problems.add(keyPath(path, key), `"${key}" must be ${check.expected}`);
    }
  }
}

function isPresent(value: Json | undefined): value is Json {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  return !(Array.isArray(value) && value.length === 0);
}

function isString(value: Json): value is string {
  return typeof value === 'string';
}
