import { contextOf, executionContext, inSpan, stepRunContext, traceparentOf, tracingEnabled } from './tracing';

describe('tracing when it is not configured', () => {
  it('is off, and runs the work without a span or a trace context to send', async () => {
    expect(tracingEnabled()).toBe(false);
    const seen: unknown[] = [];
    const result = await inSpan('command noop', stepRunContext('e1', 'r1'), { step: 'a' }, async (span) => {
      span.set({ outcome: 'COMPLETED' });
      seen.push(traceparentOf());
      return 42;
    });
    expect(result).toBe(42);
    expect(seen).toEqual([undefined]);
    expect(executionContext('e1')).toBeUndefined();
    expect(traceparentOf(contextOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'))).toBeUndefined();
  });

  it('lets a failure of the work through', async () => {
    await expect(inSpan('command noop', undefined, {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
