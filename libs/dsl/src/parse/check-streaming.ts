import type { Step } from '../model';
import { checkKeys, type ParseContext } from './parse-context';
import { isPositiveInt, isRawMap, keyPath } from './raw-shape';

/** Rows per chunk at most: a chunk is one `call.partial` and one payload. */
export const MAX_CHUNK_ROWS = 1_000_000;

const STREAM_KEYS: ReadonlySet<string> = new Set(['chunk_rows']);

/** `chunk_rows` of a step that streams its result (DSL.md s3 `stream`); undefined when it does not. */
export function streamChunkRows(step: Step): number | undefined {
  const tasks = step.tool?.tasks ?? [];
  const stream = tasks.length === 1 && !step.tool?.pipeline && tasks[0]?.kind === 'postgres' ? tasks[0].config['stream'] : undefined;
  return isRawMap(stream) && isPositiveInt(stream['chunk_rows']) ? stream['chunk_rows'] : undefined;
}

/**
 * Streaming at registration: `stream: {chunk_rows: N}` sits on a step whose
 * tool is one `postgres` task (not a pipeline, not a loop body), and an arc
 * `on: call.partial` leaves only a step that streams.
 */
export function checkStreaming(step: Step, path: string, toolPath: string, ctx: ParseContext): void {
  const streaming = (step.tool?.tasks ?? []).filter((task) => task.config['stream'] !== undefined && task.config['stream'] !== null);
  for (const task of streaming) {
    const at = keyPath(toolPath, 'stream');
    const stream = task.config['stream'];
    if (task.kind !== 'postgres') {
      ctx.problems.add(at, `"stream" is a key of the postgres tool, not of ${task.kind}`);
    } else if (step.tool?.pipeline || step.loop) {
      ctx.problems.add(at, `"stream" needs a step whose tool is one postgres task, not ${step.loop ? 'a loop body' : 'a pipeline'}`);
    } else if (!isRawMap(stream)) {
      ctx.problems.add(at, '"stream" must be a mapping {chunk_rows: N}');
    } else {
      checkKeys(stream, STREAM_KEYS, at, ctx);
      const rows = stream['chunk_rows'];
      if (!isPositiveInt(rows) || rows > MAX_CHUNK_ROWS) {
        ctx.problems.add(
          keyPath(at, 'chunk_rows'),
          `"chunk_rows" must be an integer from 1 to ${MAX_CHUNK_ROWS}, not ${JSON.stringify(rows ?? null)}`,
        );
      }
    }
  }
  if (step.next.arcs.some((arc) => arc.on === 'call.partial') && streamChunkRows(step) === undefined) {
    ctx.problems.add(
      keyPath(path, 'next'),
      'an arc "on: call.partial" needs a step that streams (a postgres tool with stream: {chunk_rows: N})',
    );
  }
}
