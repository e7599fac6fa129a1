import type { OutputStream, ToolContext } from '../tool';
import { JavaScriptTool } from './javascript.tool';
import { callFailure } from '../testing/call-failure';
import { testToolContext } from '../testing/tool-context';

function context(signal = new AbortController().signal, onOutput?: (stream: OutputStream, text: string) => void): ToolContext {
  return testToolContext({}, { signal, ...(onOutput ? { onOutput } : {}) });
}


describe('JavaScriptTool in QuickJS', () => {
  const tool = new JavaScriptTool({ memoryLimitBytes: 8 * 1024 * 1024 });
  const run = (config: Record<string, unknown>, ctx = context()) => tool.run(config, ctx);

  afterAll(() => tool.close());

  it('returns what the code assigns to result, with inputs as globals and as input', async () => {
    expect(await run({ code: 'result = { sum: a + b, keys: Object.keys(input) }', input: { a: 2, b: 3 } })).toEqual({ sum: 5, keys: ['a', 'b'] });
    expect(await run({ code: 'const result = [input.x, x];', input: { x: 'y' } })).toEqual(['y', 'y']);
  });

  it('supports a top-level return', async () => {
    expect(await run({ code: 'if (n > 1) return { big: true };\nreturn { big: false };', input: { n: 5 } })).toEqual({ big: true });
  });

  it('gives null when the code produces nothing, and awaits a returned promise', async () => {
    expect(await run({ code: 'const x = 1;' })).toBeNull();
    expect(await run({ code: 'return Promise.resolve(21).then((v) => v * 2);' })).toBe(42);
  });

  it('has no Node APIs', async () => {
    expect(await run({ code: 'return [typeof process, typeof require, typeof module, typeof fetch, typeof setTimeout];' })).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
    ]);
  });

  it('passes console output to onOutput, never into the result', async () => {
    const lines: string[] = [];
    const result = await run({ code: 'console.log("hello", { a: 1 }); console.error("oops"); return 1;' }, context(undefined, (s, t) => lines.push(`${s}:${t}`)));
    expect(result).toBe(1);
    expect(lines).toEqual(['stdout:hello {"a":1}', 'stderr:oops']);
  });

  it('fails with kind code and the JS error message', async () => {
    const err = await callFailure(run({ code: 'throw new TypeError("bad input " + x);', input: { x: 7 } }));
    expect(err.info).toMatchObject({ kind: 'code', code: 'TypeError', retryable: false });
    expect(err.info.message).toContain('TypeError: bad input 7');
    expect((await callFailure(run({ code: 'return ;;; )' }))).info).toMatchObject({ kind: 'code', code: 'SyntaxError' });
  });

  it('stops an infinite loop at the timeout', async () => {
    const started = Date.now();
    const err = await callFailure(run({ code: 'while (true) {}', timeout: 0.3 }));
    expect(err.info).toMatchObject({ kind: 'timeout', retryable: true });
    expect(err.info.message).toContain('timed out');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops a memory bomb at the memory limit and keeps working afterwards', async () => {
    const err = await callFailure(run({ code: 'const a = []; while (true) a.push([a.length, a.length, a.length, a.length]);', timeout: 5 }));
    expect(err.info.kind).toBe('code');
    expect(err.info.message).toMatch(/out of memory|sandbox/);
    expect(await run({ code: 'return 1 + 1' })).toBe(2);
  });

  it('reports runaway recursion as an error and keeps working afterwards', async () => {
    const err = await callFailure(run({ code: 'function f(n) { return f(n + 1) + 1; } return f(0);' }));
    expect(err.info.kind).toBe('code');
    expect(await run({ code: 'function f(n) { return n === 0 ? 0 : 1 + f(n - 1); } return f(500);' })).toBe(500);
  });

  it('refuses to start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await callFailure(run({ code: 'return 1' }, context(controller.signal)))).info.kind).toBe('cancelled');
  });
});
