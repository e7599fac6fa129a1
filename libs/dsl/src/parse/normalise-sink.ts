import type { Sink, Task } from '../model';
import { SINK_TABLE_KEYS, SINK_TASK_KEYS } from './allowed-keys';
import { normaliseTask } from './normalise-tool';
import { checkKeys, pickAlias, type ParseContext } from './parse-context';
import { has, isNonEmptyString, isRawMap, keyPath, toJson, type RawMap } from './raw-shape';

const SINK_TASK_NAME = 'sink';

/**
 * A per-iteration sink (DSL.md s3): a tool (`{tool: {kind, ...}}`), or the
 * table form, written as the seeds write it: `{tool: {kind: postgres, auth,
 * table, mode, args | key}}` (seed 004), `{tool: postgres, auth, table, ...}`
 * (seed 000); or a bare kind with its keys beside it (`{tool: postgres, command: ...}`).
 */
export function normaliseSink(raw: unknown, path: string, ctx: ParseContext): Sink | undefined {
  if (!isRawMap(raw)) {
    ctx.problems.add(path, '"sink" must be a mapping with "tool"');
    return undefined;
  }
  if (isRawMap(raw.tool)) {
    checkKeys(raw, SINK_TASK_KEYS, path, ctx);
    return toolSink(raw.tool, keyPath(path, 'tool'), ctx);
  }
  if (typeof raw.tool !== 'string') {
    ctx.problems.add(has(raw, 'tool') ? keyPath(path, 'tool') : path, 'a sink needs "tool": a tool mapping or "postgres" with "table"');
    return undefined;
  }
  const { tool, ...keys } = raw;
  if (has(raw, 'table')) return normaliseTableSink(keys, tool, keyPath(path, 'tool'), path, ctx);
  const task = normaliseTask({ ...keys, kind: tool }, path, ctx, {
    pipeline: false,
    name: SINK_TASK_NAME,
    kindPath: keyPath(path, 'tool'),
  });
  return task && { kind: 'task', task };
}

/**
 * A retry policy's `per_iteration.sink` (the policy compilers' `compileSink`):
 * any form of `normaliseSink`, or a tool mapping given directly (`{kind: postgres, ...}`).
 */
export function compilePerIterationSink(raw: unknown, path: string, ctx: ParseContext): Sink | undefined {
  if (isRawMap(raw) && has(raw, 'kind')) return toolSink(raw, path, ctx);
  return normaliseSink(raw, path, ctx);
}

/** A tool mapping as a sink: the table form when it names a `table`, else a task. */
function toolSink(raw: RawMap, path: string, ctx: ParseContext): Sink | undefined {
  if (has(raw, 'table')) {
    const { kind, ...keys } = raw;
    return normaliseTableSink(keys, kind, keyPath(path, 'kind'), path, ctx);
  }
  const task: Task | undefined = normaliseTask(raw, path, ctx, { pipeline: false, name: SINK_TASK_NAME });
  return task && { kind: 'task', task };
}

/**
 * `{auth | credential | connection, table, args?, mode?, key?}` of the table
 * form, `kind` being `postgres`. `auth` may also be the seeds' `{type,
 * credential}`; `mode: append` is `insert`.
 */
function normaliseTableSink(raw: RawMap, kind: unknown, kindPath: string, path: string, ctx: ParseContext): Sink | undefined {
  checkKeys(raw, SINK_TABLE_KEYS, path, ctx);
  let ok = true;
  const fail = (at: string, message: string): void => {
    ok = false;
    ctx.problems.add(at, message);
  };
  if (kind !== 'postgres') fail(kindPath, `the table form of a sink writes to postgres, not "${String(kind)}"`);
  if (!isNonEmptyString(raw.table)) fail(keyPath(path, 'table'), 'sink "table" must be a table name');
  const auth = credentialName(pickAlias(raw, ['auth', 'credential'], path, ctx)?.value);
  const connection = raw.connection;
  if (!isNonEmptyString(auth) && !isNonEmptyString(connection)) fail(path, 'a table sink needs "auth" (a credential name) or "connection"');
  const mode = raw.mode === undefined || raw.mode === 'append' ? 'insert' : raw.mode;
  if (mode !== 'insert' && mode !== 'upsert') {
    fail(keyPath(path, 'mode'), `sink "mode" must be "insert" or "upsert", not ${JSON.stringify(mode)}`);
  }
  const key = sinkKey(raw.key);
  if (key === null) fail(keyPath(path, 'key'), 'sink "key" must be a column name or a list of column names');
  else if (mode === 'upsert' && key === undefined) fail(path, 'an upsert sink needs "key"');
  if (!ok || !isNonEmptyString(raw.table) || (mode !== 'insert' && mode !== 'upsert') || key === null) return undefined;
  return {
    kind: 'table',
    table: raw.table,
    mode,
    ...(isNonEmptyString(auth) ? { auth } : {}),
    ...(isNonEmptyString(connection) ? { connection } : {}),
    ...(has(raw, 'args') ? { args: toJson(raw.args) } : {}),
    ...(key ? { key } : {}),
  };
}

/** `auth: name`, or the seeds' `auth: {type: postgres, credential: name}`. */
function credentialName(auth: unknown): unknown {
  return isRawMap(auth) && typeof auth.credential === 'string' ? auth.credential : auth;
}

/** undefined: absent; null: malformed. */
function sinkKey(raw: unknown): string[] | undefined | null {
  if (raw === undefined || raw === null) return undefined;
  if (isNonEmptyString(raw)) return [raw];
  if (Array.isArray(raw) && raw.length > 0 && raw.every(isNonEmptyString)) return raw;
  return null;
}
