import type { LedgerEvent } from './envelope';
import type { EventError, Json, JsonObject, PayloadRef, RowOutcome } from './event-payloads';
import { EventType } from './event-types';
import { UpcasterError, type Upcaster } from './upcasters';

/** `frame.committed` as schema version 1 wrote it: every row of the frame listed, in index order. */
interface FrameCommittedV1 {
  frame_id: string;
  stage_id: string;
  frame_index: number;
  row_count: number;
  rows: RowOutcome[];
  results?: Json[];
  output_ref?: PayloadRef;
  ctx?: JsonObject;
}

/**
 * Version 1 -> 2 of `frame.committed`: a frame of 1,000 rows listed 1,000
 * `{index, status: ok}` entries in the ledger and the stream;
 * version 2 keeps the first index and the failed rows only. Both fold to
 * the same state (the reducer lists every row again).
 */
export const frameCommittedV1: Upcaster = {
  schemaName: `noetl.${EventType.FrameCommitted}`,
  fromVersion: 1,
  toVersion: 2,
  upcast(event) {
    const payload: unknown = event.payload;
    if (!isFrameCommittedV1(payload)) throw new UpcasterError(`frame.committed ${event.event_id} at version 1 has no rows list`);
    const { rows, ...rest } = payload;
    const failed_rows = rows
      .filter((row) => row.status !== 'ok')
      .map((row): RowOutcome => ({ index: row.index, status: 'error', ...(row.error ? { error: row.error as EventError } : {}) }));
    return { ...event, schema_version: 2, payload: { ...rest, first_index: rows[0]?.index ?? 0, failed_rows } } as LedgerEvent;
  },
};

function isFrameCommittedV1(payload: unknown): payload is FrameCommittedV1 {
  return typeof payload === 'object' && payload !== null && Array.isArray((payload as { rows?: unknown }).rows);
}
