import type { Sink, Task } from '../model';
import { SINK_TABLE_KEYS, SINK_TASK_KEYS } from './allowed-keys';
import { normaliseTask } from './normalise-tool';
import { checkKeys, pickAlias, type ParseContext } from './parse-context';
import { has, isNonEmptyString, isRawMap, keyPath, toJson, type RawMap } from './raw-shape';

const SINK_TASK_NAME = 'sink';

/**
 * A per-iteration sink (DSL.md s3): the tool form `{tool: {kind, ...}}`, the
 * seeds' table form `{tool: postgres, auth|connection, table, args?, mode?, key?}`,
 * or a bare kind with its keys beside it (`{tool: postgres, command: ...}`).
 */
export function normaliseSink(raw: unknown, path: string, ctx: ParseContext): Sink | undefined {
  if (!isRawMap(raw)) {
    ctx.problems.add(path, '"sink" must be a mapping with "tool"');
    return undefined;
  }
  if (isRawMap(raw.tool)) {
    checkKeys(raw, SINK_TASK_KEYS, path, ctx);
    const task = normaliseTask(raw.tool, keyPath(path, 'tool'), ctx, { pipeline: false, name: SINK_TASK_NAME });
    return task && { kind: 'task', task };
  }
  if (typeof raw.tool !== 'string') {
    ctx.problems.add(has(raw, 'tool') ? keyPath(path, 'tool') : path, 'a sink needs "tool": a tool mapping or "postgres" with "table"');
    return undefined;
  }
  if (has(raw, 'table')) return normaliseTableSink(raw, path, ctx);
  const task = bareKindTask(raw, path, ctx);
  return task && { kind: 'task', task };
}

/**
 * The task a retry `per_iteration.sink` runs (the policy compilers' `compileTask`):
 * a tool mapping, `{tool: {...}}` or `{tool: <kind>, ...keys}`.
 */
export function compileSinkTask(raw: unknown, path: string, ctx: ParseContext): Task | undefined {
  if (isRawMap(raw) && has(raw, 'kind')) return normaliseTask(raw, path, ctx, { pipeline: false, name: SINK_TASK_NAME });
  const sink = normaliseSink(raw, path, ctx);
  if (sink?.kind === 'table') {
    ctx.problems.add(path, 'the table form of a sink is not supported here; use {tool: {kind: postgres, command: ...}}');
    return undefined;
  }
  return sink?.task;
}

function bareKindTask(raw: RawMap, path: string, ctx: ParseContext): Task | undefined {
  const { tool, ...keys } = raw;
  return normaliseTask({ ...keys, kind: tool }, path, ctx, { pipeline: false, name: SINK_TASK_NAME, kindPath: keyPath(path, 'tool') });
}

function normaliseTableSink(raw: RawMap, path: string, ctx: ParseContext): Sink | undefined {
  checkKeys(raw, SINK_TABLE_KEYS, path, ctx);
  let ok = true;
  const fail = (at: string, message: string): void => {
    ok = false;
    ctx.problems.add(at, message);
  };
  if (raw.tool !== 'postgres') fail(keyPath(path, 'tool'), `the table form of a sink writes to postgres, not "${String(raw.tool)}"`);
  if (!isNonEmptyString(raw.table)) fail(keyPath(path, 'table'), 'sink "table" must be a table name');
  const auth = pickAlias(raw, ['auth', 'credential'], path, ctx)?.value;
  const connection = raw.connection;
  if (!isNonEmptyString(auth) && !isNonEmptyString(connection)) fail(path, 'a table sink needs "auth" or "connection"');
  const mode = raw.mode ?? 'insert';
  if (mode !== 'insert' && mode !== 'upsert') fail(keyPath(path, 'mode'), `sink "mode" must be "insert" or "upsert", not ${JSON.stringify(mode)}`);
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

/** undefined: absent; null: malformed. */
function sinkKey(raw: unknown): string[] | undefined | null {
  if (raw === undefined || raw === null) return undefined;
  if (isNonEmptyString(raw)) return [raw];
  if (Array.isArray(raw) && raw.length > 0 && raw.every(isNonEmptyString)) return raw;
  return null;
}
