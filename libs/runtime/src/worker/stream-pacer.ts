import type { JsonObject } from '@noetl/event-kernel';
import type { ControlPlane, Holder, PartialRequest } from '../control-plane/control-plane';
import type { RuntimeMetrics } from '../metrics';

/** NOETL_STREAM_MAX_PENDING_CHUNKS when the worker is given none. */
export const DEFAULT_STREAM_MAX_PENDING_CHUNKS = 8;

/** The first pause of a worker waiting for its stream's consumers, and the longest between two looks at the backlog. */
const STREAM_POLL_MS = 20;
const STREAM_POLL_MAX_MS = 500;

/**
 * Backpressure of a worker's streamed results (issue 27 item 5). `report`
 * sends one chunk and returns only once fewer than `maxPending` of the
 * stream's chunks are unconsumed, polling the backlog meanwhile (the lease
 * is heartbeated as ever); the tool reads its next chunk only once it
 * returns. So no more than `maxPending` chunks are ever in flight, and the
 * worker holds at most the chunk it waits with and the one it read ahead.
 */
export class StreamPacer {
  /** The most chunks of a stream seen in flight at a report (the `noetl_stream_pending_chunks_max` gauge). */
  private peak = 0;

  constructor(
    private readonly maxPending: number,
    private readonly metrics: RuntimeMetrics,
  ) {}

  async report(
    controlPlane: ControlPlane,
    commandId: string,
    holder: Holder,
    chunk: Omit<PartialRequest, keyof Holder> & { rows: JsonObject[] },
  ): Promise<void> {
    let { pending_chunks: pending } = await controlPlane.reportPartial(commandId, { ...holder, ...chunk });
    if (pending > this.peak) this.metrics.streamPendingChunks.set((this.peak = pending));
    // After the last chunk nothing more is read: nothing to wait for.
    if (!chunk.has_more || pending < this.maxPending) return;
    this.metrics.streamWaits.inc();
    for (let pause = STREAM_POLL_MS; pending >= this.maxPending; pause = Math.min(pause * 2, STREAM_POLL_MAX_MS)) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      ({ pending_chunks: pending } = await controlPlane.streamBacklog(commandId, holder));
    }
  }
}
