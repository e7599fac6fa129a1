import { Int32, Table, Utf8, tableToIPC, vectorFromArray } from 'apache-arrow';
import { decodeFrameOutput, encodeFrameOutput, frameOutputSchemaDigest, type FrameOutputRow } from './frame-output';

describe('frame output (Arrow IPC)', () => {
  const rows: FrameOutputRow[] = [
    { index: 10, status: 'ok', result: { id: 1, tags: ['a'], nested: { x: null } } },
    { index: 11, status: 'error', error: { kind: 'http', message: 'HTTP 500' } },
    { index: 12, status: 'ok', result: 'plain' },
    { index: 13, status: 'ok' },
  ];

  it('round-trips rows, results and errors in order', () => {
    expect(decodeFrameOutput(encodeFrameOutput(rows))).toEqual(rows);
  });

  it('has one schema whatever the results look like', () => {
    const other = encodeFrameOutput([{ index: 0, status: 'ok', result: [1, 2, 3] }]);
    expect(frameOutputSchemaDigest(other)).toBe(frameOutputSchemaDigest(encodeFrameOutput(rows)));
    expect(frameOutputSchemaDigest(other)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('round-trips text of every width (ASCII, accents, CJK, emoji) and rows with no result or error', () => {
    const wide: FrameOutputRow[] = ['plain', 'Päss wörd', '数据管道', 'rocket 🚀 ok', ''].map((text, i) => ({
      index: i,
      status: 'ok',
      result: { text },
    }));
    const mixed = [...wide, { index: 5, status: 'ok' as const }, { index: 6, status: 'error' as const, error: { message: 'ünïcode' } }];
    expect(decodeFrameOutput(encodeFrameOutput(mixed))).toEqual(mixed);
  });

  it("has the schema apache-arrow's own builder gives, so outputs stored before keep their digest and read alike", () => {
    const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
    const built = tableToIPC(
      new Table({
        index: vectorFromArray(
          rows.map((row) => row.index),
          new Int32(),
        ),
        status: vectorFromArray(
          rows.map((row) => row.status),
          new Utf8(),
        ),
        result: vectorFromArray(
          rows.map((row) => json(row.result)),
          new Utf8(),
        ),
        error: vectorFromArray(
          rows.map((row) => json(row.error)),
          new Utf8(),
        ),
      }),
      'stream',
    );
    expect(frameOutputSchemaDigest(encodeFrameOutput(rows))).toBe(frameOutputSchemaDigest(built));
    expect(decodeFrameOutput(built)).toEqual(decodeFrameOutput(encodeFrameOutput(rows)));
  });

  it('encodes an empty frame', () => {
    expect(decodeFrameOutput(encodeFrameOutput([]))).toEqual([]);
  });
});
