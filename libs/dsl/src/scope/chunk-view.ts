import type { ChunkOrigin, Json } from '@noetl/event-kernel';

/**
 * `{{ chunk }}` (DSL.md s3 `stream`): one chunk of a streamed result. With
 * its `rows` in the call of the step run an `on: call.partial` arc started
 * (the claim loads them); without, where the scheduler plans (the arc's
 * `when` and `set`, the run's own `set` and `next`): it never loads a chunk,
 * so its memory does not grow with a stream.
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
