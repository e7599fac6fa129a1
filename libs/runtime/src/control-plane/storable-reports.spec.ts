import { storableFrameReport, storableOutcome } from './storable-reports';

const NUL = String.fromCharCode(0);
const holder = { worker_id: 'w1', lease_token: 't' };

describe('storableOutcome', () => {
  it('fails a completed command whose result holds U+0000, for good, naming where, and keeps its calls and duration', () => {
    const calls = [{ task: 'get', attempts: 1, duration_ms: 4, status: 'ok' as const }];
    expect(storableOutcome({ status: 'COMPLETED', result: { rows: [{ v: `a${NUL}b` }] }, ctx: { n: 1 }, calls, durationMs: 9 })).toEqual({
      status: 'FAILED',
      calls,
      durationMs: 9,
      error: { kind: 'unstorable_result', message: expect.stringMatching(/^result\.rows\[0\]\.v holds a NUL character/), retryable: false },
    });
  });

  it('fails one whose ctx holds it', () => {
    expect(storableOutcome({ status: 'COMPLETED', result: 1, ctx: { note: NUL } })).toMatchObject({
      status: 'FAILED',
      error: { message: expect.stringMatching(/^ctx\.note holds/) },
    });
  });

  it('escapes it in a failure and in call reports, and keeps an outcome without it', () => {
    expect(storableOutcome({ status: 'FAILED', error: { kind: 'code', message: `bad${NUL}` } })).toEqual({
      status: 'FAILED',
      error: { kind: 'code', message: 'bad\\u0000' },
    });
    const plain = { status: 'COMPLETED' as const, result: { a: 'b' } };
    expect(storableOutcome(plain)).toEqual(plain);
  });
});

describe('storableFrameReport', () => {
  it('fails the rows whose result holds U+0000 and keeps the others', () => {
    const report = storableFrameReport({
      ...holder,
      rows: [
        { index: 4, status: 'ok', result: 1 },
        { index: 5, status: 'ok', result: [`${NUL}`] },
      ],
    });
    expect(report.rows).toEqual([
      { index: 4, status: 'ok', result: 1 },
      {
        index: 5,
        status: 'error',
        error: { kind: 'unstorable_result', message: expect.stringMatching(/^result \(row 5\)\[0\] holds/), retryable: false },
      },
    ]);
  });

  it("fails every row when the frame's ctx holds it, and drops that ctx", () => {
    const report = storableFrameReport({ ...holder, rows: [{ index: 0, status: 'ok', result: 1 }], ctx: { x: NUL } });
    expect(report).not.toHaveProperty('ctx');
    expect(report.rows).toEqual([
      { index: 0, status: 'error', error: expect.objectContaining({ message: expect.stringMatching(/^ctx\.x holds/) }) },
    ]);
  });

  it('escapes it in row errors', () => {
    expect(
      storableFrameReport({ ...holder, rows: [{ index: 0, status: 'error', error: { kind: 'code', message: NUL } }] }).rows[0]?.error
        ?.message,
    ).toBe('\\u0000');
  });
});
