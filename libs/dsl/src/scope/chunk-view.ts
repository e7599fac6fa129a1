import type { ChunkOrigin, Json } from '@noetl/event-kernel';

/**
 * `{{ chunk }}` (DSL.md s3 `stream`): one chunk of a streamed result, in the
 * `when` and `set` of an `on: call.partial` arc and in the call of the step
 * run it starts. `rows` is left out where the rows are not loaded (the
 * started run's own `set` and `next`, planned by the scheduler).
 */
export function chunkView(origin: ChunkOrigin, rows?: Json): Record<string, unknown> {
  return {
    index: origin.chunk_index,
    has_more: origin.has_more,
    row_count: origin.row_count,
    step: origin.step,
    ...(rows !== undefined ? { rows } : {}),
  };
}
