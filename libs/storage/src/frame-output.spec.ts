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

  it('encodes an empty frame', () => {
    expect(decodeFrameOutput(encodeFrameOutput([]))).toEqual([]);
  });
});
