import { canonicalChecksum, type Json, type PayloadRef } from '@noetl/event-kernel';
import { Int32, Table, Utf8, makeData, makeVector, tableFromIPC, tableToIPC, vectorFromArray, type Vector } from 'apache-arrow';
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
    index: vectorFromArray(
      rows.map((row) => row.index),
      new Int32(),
    ),
    status: utf8Vector(rows.map((row) => row.status)),
    result: utf8Vector(rows.map((row) => (row.result === undefined ? null : JSON.stringify(row.result)))),
    error: utf8Vector(rows.map((row) => (row.error === undefined ? null : JSON.stringify(row.error)))),
  });
  return tableToIPC(table, 'stream');
}

/** Whether every character of `text` is ASCII, so its UTF-8 form is as many bytes as it has characters. */
const ASCII = /^[\x00-\x7f]*$/;

/**
 * A nullable Utf8 column of `values`, encoded in one pass: apache-arrow's
 * builder (`vectorFromArray`) encodes each value with its own TextEncoder
 * call and grows its buffers as it goes, which cost a 500-row frame more
 * than interpreting its rows. Here the column's text is joined and encoded
 * once, and the offsets come from each value's byte length.
 */
function utf8Vector(values: readonly (string | null)[]): Vector<Utf8> {
  const valueOffsets = new Int32Array(values.length + 1);
  const nullBitmap = new Uint8Array(Math.ceil(values.length / 8));
  let nullCount = 0;
  let bytes = 0;
  for (const [i, value] of values.entries()) {
    if (value === null) nullCount++;
    else {
      nullBitmap[i >> 3]! |= 1 << (i & 7);
      bytes += ASCII.test(value) ? value.length : Buffer.byteLength(value, 'utf8');
    }
    valueOffsets[i + 1] = bytes;
  }
  const data = Buffer.from(values.filter((value) => value !== null).join(''), 'utf8');
  return makeVector(makeData({ type: new Utf8(), length: values.length, nullCount, nullBitmap, valueOffsets, data }));
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
