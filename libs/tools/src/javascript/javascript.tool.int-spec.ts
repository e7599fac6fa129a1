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
    expect(await run({ code: 'result = { sum: a + b, keys: Object.keys(input) }', input: { a: 2, b: 3 } })).toEqual({
      sum: 5,
      keys: ['a', 'b'],
    });
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
    const result = await run(
      { code: 'console.log("hello", { a: 1 }); console.error("oops"); return 1;' },
      context(undefined, (s, t) => lines.push(`${s}:${t}`)),
    );
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
    const err = await callFailure(
      run({ code: 'const a = []; while (true) a.push([a.length, a.length, a.length, a.length]);', timeout: 5 }),
    );
    expect(err.info.kind).toBe('code');
    expect(err.info.message).toMatch(/out of memory|sandbox/);
    expect(await run({ code: 'return 1 + 1' })).toBe(2);
  });

  it('stops string and typed-array bombs at the hard memory cap, and the process does not keep the memory (issue 11)', async () => {
    const rssBefore = process.memoryUsage().rss;
    for (const code of [
      'let s = "x"; while (true) s += s;',
      'const a = []; while (true) a.push("x".repeat(100000) + a.length);',
      'const a = []; while (true) a.push(new Uint8Array(1 << 20));',
    ]) {
      const err = await callFailure(run({ code, timeout: 10 }));
      expect(err.info).toMatchObject({ kind: 'code', code: expect.stringMatching(/OutOfMemory|InternalError/) });
    }
    expect(await run({ code: 'return "still here"' })).toBe('still here');
    // Before: QuickJS's own limit does not count strings and typed arrays, and each bomb grew the process by up to 2 GiB.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
  });

  it('queues calls beyond its threads and runs them all', async () => {
    const small = new JavaScriptTool({ threads: 2 });
    try {
      const results = await Promise.all(
        [1, 2, 3, 4, 5].map((n) => small.run({ code: 'let i = 0; while (i < 1e5) i++; return n * 10', input: { n } }, context())),
      );
      expect(results).toEqual([10, 20, 30, 40, 50]);
    } finally {
      await small.close();
    }
  });

  it('reports runaway recursion as an error and keeps working afterwards', async () => {
    const err = await callFailure(run({ code: 'function f(n) { return f(n + 1) + 1; } return f(0);' }));
    expect(err.info.kind).toBe('code');
    expect(await run({ code: 'function f(n) { return n === 0 ? 0 : 1 + f(n - 1); } return f(500);' })).toBe(500);
  });

  it('runs off the event loop: timers keep firing while user code spins (issue 11 build item 5)', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    try {
      const err = await callFailure(run({ code: 'while (true) {}', timeout: 1 }));
      expect(err.info.kind).toBe('timeout');
    } finally {
      clearInterval(timer);
    }
    // Before: the sandbox ran on this thread and not one tick fired for the whole second.
    expect(ticks).toBeGreaterThanOrEqual(5);
  });

  it('caps a timeout above the configured ceiling and says so (issue 15 defect 8)', async () => {
    const capped = new JavaScriptTool({ maxTimeoutSeconds: 1 });
    try {
      const started = Date.now();
      const err = await callFailure(capped.run({ code: 'while (true) {}', timeout: 30 }, context()));
      expect(err.info).toMatchObject({ kind: 'timeout', retryable: true });
      expect(err.info.message).toBe('javascript: timed out after 1s (timeout 30s capped at the 1s ceiling)');
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await capped.close();
    }
  });

  it('stops a catastrophic regular expression at the deadline and recovers the slot', async () => {
    const err = await callFailure(run({ code: 'return /^(a+)+$/.test("a".repeat(40) + "!")', timeout: 0.5 }));
    expect(err.info.kind).toBe('timeout');
    expect(await run({ code: 'return "aaa".replace(/a/g, "b")' })).toBe('bbb');
  });

  it('terminates a call stuck where QuickJS cannot interrupt it, shortly after its deadline, and the slot recovers', async () => {
    // A naive substring search runs about 10 s inside one native call that never checks the deadline.
    const started = Date.now();
    const err = await callFailure(run({ code: 'return "a".repeat(1e6).indexOf("a".repeat(1e4) + "b")', timeout: 0.1 }));
    expect(err.info).toMatchObject({ kind: 'timeout', message: 'javascript: timed out after 0.1s' });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await run({ code: 'return "ok"' })).toBe('ok');
  });

  it('cancels a spinning call when the signal aborts, and the slot recovers', async () => {
    const controller = new AbortController();
    const pending = callFailure(run({ code: 'while (true) {}', timeout: 30 }, context(controller.signal)));
    setTimeout(() => controller.abort(), 200);
    expect((await pending).info.kind).toBe('cancelled');
    expect(await run({ code: 'return 6 * 7' })).toBe(42);
  });

  it('refuses to start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await callFailure(run({ code: 'return 1' }, context(controller.signal)))).info.kind).toBe('cancelled');
  });
});
