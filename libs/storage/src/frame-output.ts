import { canonicalChecksum, type Json, type PayloadRef } from '@noetl/event-kernel';
import { Int32, Table, Utf8, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import type { PayloadStore } from './payload-store';
import type { TenantScope } from './storage-error';

export const ARROW_STREAM_MEDIA_TYPE = 'application/vnd.apache.arrow.stream';

/** One row of a committed frame: its collection index, outcome and result (JSON). */
export interface FrameOutputRow {
  index: number;
  status: 'ok' | 'error';
  result?: Json;
  error?: Json;
}

/**
 * A frame's rows as an Arrow IPC stream (DESIGN.md "Loops are stages of
 * frames"): columns `index` (int32), `status`, `result` and `error` (JSON
 * text; null when absent). JSON text keeps any result shape in one column
 * type, so every frame of every loop has the same schema.
 */
export function encodeFrameOutput(rows: readonly FrameOutputRow[]): Uint8Array {
  const table = new Table({
    index: vectorFromArray(rows.map((row) => row.index), new Int32()),
    status: vectorFromArray(rows.map((row) => row.status), new Utf8()),
    result: vectorFromArray(rows.map((row) => (row.result === undefined ? null : JSON.stringify(row.result))), new Utf8()),
    error: vectorFromArray(rows.map((row) => (row.error === undefined ? null : JSON.stringify(row.error))), new Utf8()),
  });
  return tableToIPC(table, 'stream');
}

/** The rows of an encoded frame output, in order. */
export function decodeFrameOutput(bytes: Uint8Array): FrameOutputRow[] {
  const table = tableFromIPC(bytes);
  const index = table.getChild('index');
  const status = table.getChild('status');
  const result = table.getChild('result');
  const error = table.getChild('error');
  if (!index || !status || !result || !error) throw new Error('frame output lacks one of the columns index, status, result, error');
  return Array.from({ length: table.numRows }, (_, i): FrameOutputRow => {
    const resultText = result.get(i) as string | null;
    const errorText = error.get(i) as string | null;
    return {
      index: index.get(i) as number,
      status: status.get(i) === 'error' ? 'error' : 'ok',
      ...(resultText === null ? {} : { result: JSON.parse(resultText) as Json }),
      ...(errorText === null ? {} : { error: JSON.parse(errorText) as Json }),
    };
  });
}

/** sha256 of the Arrow schema (field names and types), recorded on the ref so a reader can tell layouts apart. */
export function frameOutputSchemaDigest(bytes: Uint8Array): string {
  const { schema } = tableFromIPC(bytes);
  return canonicalChecksum(schema.fields.map((field) => ({ name: field.name, type: String(field.type), nullable: field.nullable })));
}

/** Stores a frame's rows as Arrow in the payload store; the ref carries the row count and schema digest. */
export async function putFrameOutput(store: PayloadStore, rows: readonly FrameOutputRow[], scope: TenantScope): Promise<PayloadRef> {
  const bytes = encodeFrameOutput(rows);
  const ref = await store.put(bytes, ARROW_STREAM_MEDIA_TYPE, scope);
  return { ...ref, rows: rows.length, schema_digest: frameOutputSchemaDigest(bytes) };
}
