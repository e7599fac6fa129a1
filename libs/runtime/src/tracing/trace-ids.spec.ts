import { executionSpanId, executionTraceId, stepRunSpanId } from './trace-ids';

describe('trace ids', () => {
  it('are the same in every process for one execution and step run, and differ between them', () => {
    expect(executionTraceId('384802513069740032')).toBe(executionTraceId('384802513069740032'));
    expect(executionTraceId('384802513069740032')).not.toBe(executionTraceId('384802513069740033'));
    expect(stepRunSpanId('r1')).not.toBe(stepRunSpanId('r2'));
    expect(executionSpanId('e1')).not.toBe(stepRunSpanId('e1'));
  });

  it('have the W3C shapes: a 16-byte trace id and 8-byte span ids, in lower-case hex', () => {
    expect(executionTraceId('e1')).toMatch(/^[0-9a-f]{32}$/);
    expect(executionSpanId('e1')).toMatch(/^[0-9a-f]{16}$/);
    expect(stepRunSpanId('r1')).toMatch(/^[0-9a-f]{16}$/);
  });
});
