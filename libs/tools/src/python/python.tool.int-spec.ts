import type { OutputStream, ToolContext } from '../tool';
import { PythonTool } from './python.tool';
import { callFailure } from '../testing/call-failure';
import { testToolContext } from '../testing/tool-context';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../../../../test/support/wait-for';

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return testToolContext({}, overrides);
}

describe('PythonTool with a real python3', () => {
  const tool = new PythonTool();
  const run = (config: Record<string, unknown>, ctx = context()) => tool.run(config, ctx);

  it('returns the global result, with inputs as globals and print() kept out of the result (hello_world)', async () => {
    const output: string[] = [];
    const result = await run(
      {
        code: 'print(f"HELLO_WORLD: {message}")\nresult = {"status": "ok", "data": {"message": message}}',
        input: { message: 'Hello World' },
      },
      context({ onOutput: (stream: OutputStream, text: string) => output.push(`${stream}:${text}`) }),
    );
    expect(result).toEqual({ status: 'ok', data: { message: 'Hello World' } });
    expect(output.join('')).toContain('stdout:HELLO_WORLD: Hello World');
  });

  it('passes printed output on in whole lines, however python wrote them', async () => {
    const lines: string[] = [];
    const code = 'import sys\nprint("a", "b")\nsys.stdout.write("x")\nsys.stdout.flush()\nsys.stdout.write("y\\nz")\nresult = 1';
    expect(await run({ code }, context({ onOutput: (_stream: OutputStream, text: string) => lines.push(text) }))).toBe(1);
    expect(lines).toEqual(['a b\n', 'xy\n', 'z']);
  });

  it('calls main() when no result is set, binding arguments by name (fanout_reduce_phase6)', async () => {
    expect(await run({ code: 'def main():\n    return {"normalized": True}' })).toEqual({ normalized: true });
    expect(await run({ code: 'def main(a, b=10, **rest):\n    return [a, b, sorted(rest)]', input: { a: 1, c: 3, d: 4 } })).toEqual([
      1,
      10,
      ['c', 'd'],
    ]);
  });

  it('supports a top-level return, with inputs visible and input_data as the input dict (loop_test)', async () => {
    const code =
      'num = input_data.get(\'num\')\nresult = num * 2\nprint(result)\nreturn {"number": num, "doubled": result, "same": num == input_data[\'num\']}';
    expect(await run({ code, input: { num: 3 } })).toEqual({ number: 3, doubled: 6, same: true });
    expect(await run({ code: 'result = 5\nif x:\n    return', input: { x: true } })).toBe(5);
  });

  it('keeps helper functions and imports usable inside code with a top-level return', async () => {
    const code = [
      'import math',
      'def double(v):',
      '    return helper(v) * 2',
      'def helper(v):',
      '    return math.floor(v)',
      'return {"d": double(n), "squares": [double(i) for i in range(3)]}',
    ].join('\n');
    expect(await run({ code, input: { n: 2.7 } })).toEqual({ d: 4, squares: [0, 2, 4] });
  });

  it('keeps module semantics under a top-level return: inputs can be reassigned, result and main are globals', async () => {
    expect(await run({ code: 'count = count + 1\nif count > 100:\n    return "big"\nresult = count', input: { count: 1 } })).toBe(2);
    expect(await run({ code: 'def main():\n    return "from main"\nif False:\n    return 1' })).toBe('from main');
    expect(await run({ code: 'try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    return type(e).__name__' })).toBe('ZeroDivisionError');
  });

  it('does not run a main() guarded by __name__ == "__main__" twice', async () => {
    const code = 'calls = []\ndef main():\n    calls.append(1)\n    return len(calls)\nif __name__ == "__main__":\n    main()';
    expect(await run({ code })).toBe(1);
  });

  it('returns a large result and survives a flood of printed output', async () => {
    const result = (await run({ code: 'for i in range(5000):\n    print("noise", i)\nresult = {"blob": "x" * 900000, "n": 1}' })) as {
      blob: string;
      n: number;
    };
    expect(result.blob).toHaveLength(900_000);
    expect(result.n).toBe(1);
  });

  it('lets an input named input_data win over the input dict (test_start_with_action)', async () => {
    expect(await run({ code: 'result = input_data', input: { input_data: { a: 1 }, other: 2 } })).toEqual({ a: 1 });
  });

  it('imports libs by alias, pre-imports os/json/datetime/uuid and exposes context', async () => {
    const code = [
      'assert callable(jl.dumps) and os.sep and json.dumps and uuid.uuid4 and datetime.date',
      'result = {"t": tm.time() > 0, "keys": sorted(context.keys()), "wf": context.get("workload")}',
    ].join('\n');
    const result = await run({ code, libs: { jl: 'json', tm: 'time' } }, context({ scope: { workload: { a: 1 }, execution_id: '7' } }));
    expect(result).toEqual({ t: true, keys: ['execution_id', 'workload'], wf: { a: 1 } });
    expect(await run({ code: 'result = 1', libs: ['json'] })).toBe(1);
  });

  it('converts tuples, sets, datetimes and NaN to JSON', async () => {
    const code =
      'import decimal\nresult = {"t": (1, 2), "s": {3, 1}, "d": datetime.datetime(2025, 1, 2, 3, 4, 5), "n": float("nan"), "x": decimal.Decimal("1.5"), 7: True}';
    expect(await run({ code })).toEqual({ t: [1, 2], s: [1, 3], d: '2025-01-02T03:04:05', n: null, x: 1.5, '7': true });
  });

  it('returns null when the code sets no result', async () => {
    expect(await run({ code: 'x = 1' })).toBeNull();
  });

  it('accepts an inline script source', async () => {
    expect(await run({ script: { uri: 'inline', source: { type: 'inline', code: 'result = 40 + 2' } } })).toBe(42);
  });

  it('fails with kind code, the exception type, message and innermost frame', async () => {
    const err = await callFailure(run({ code: 'x = 1\nassert x == 2, "x should be 2"' }));
    expect(err.info).toMatchObject({ kind: 'code', code: 'AssertionError', retryable: false });
    expect(err.info.message).toContain('AssertionError: x should be 2');
    expect(err.info.message).toContain('line 2');
    expect(err.data).toMatchObject({ exception: 'AssertionError', message: 'x should be 2' });
    expect((await callFailure(run({ code: 'import no_such_module_xyz' }))).info.code).toBe('ModuleNotFoundError');
    expect((await callFailure(run({ code: 'def (' }))).info.code).toBe('SyntaxError');
  });

  it('fails when the process dies without a result', async () => {
    const err = await callFailure(run({ code: 'import sys\nsys.stderr.write("dying\\n")\nos._exit(3)' }));
    expect(err.info).toMatchObject({ kind: 'code', code: 'PythonExit' });
    expect(err.info.message).toContain('code 3');
    expect(err.info.message).toContain('dying');
  });

  it('kills the process at the timeout', async () => {
    const started = Date.now();
    const err = await callFailure(run({ code: 'import time\ntime.sleep(30)', timeout: 0.3 }));
    expect(err.info).toMatchObject({ kind: 'timeout', retryable: true });
    expect(err.info.message).toContain('timed out');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('caps a timeout above the ceiling (NOETL_PYTHON_MAX_TIMEOUT_SECONDS) and says so', async () => {
    const capped = new PythonTool({ maxTimeoutSeconds: 1 });
    const started = Date.now();
    const err = await callFailure(capped.run({ code: 'import time\ntime.sleep(60)', timeout: 3600 }, context()));
    expect(err.info).toMatchObject({ kind: 'timeout', message: 'python: timed out after 1s (timeout 3600s capped at the 1s ceiling)' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('kills the process when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = callFailure(run({ code: 'import time\ntime.sleep(30)' }, context({ signal: controller.signal })));
    setTimeout(() => controller.abort(), 300);
    expect((await pending).info.kind).toBe('cancelled');
  });

  it('refuses when python is disabled or missing', async () => {
    expect((await callFailure(run({ code: 'result = 1' }, context({ pythonEnabled: false })))).info).toMatchObject({
      kind: 'internal',
      message: 'python tool disabled (NOETL_PYTHON=off)',
    });
    const missing = new PythonTool({ pythonBinary: '/nonexistent/bin/python3' });
    expect((await callFailure(missing.run({ code: 'result = 1' }, context()))).info).toMatchObject({
      kind: 'internal',
      message: 'python3 not found on PATH (set NOETL_PYTHON=off to disable python steps)',
    });
  });

  it('refuses every step before it runs on a worker whose ledger cluster takes a login without a password', async () => {
    const workRoot = mkdtempSync(join(tmpdir(), 'noetl-refused-'));
    try {
      const refused = new PythonTool({ refusedBecause: 'the cluster trusts this host', workRoot });
      const err = await callFailure(refused.run({ code: 'open("/tmp/ran", "w")\nresult = 1' }, context()));
      expect(err.info).toEqual({
        kind: 'auth',
        message: 'python: refused on this worker: the cluster trusts this host',
        retryable: false,
        code: 'LEDGER_EXPOSED',
      });
      // Nothing ran: no working directory was even made.
      expect(readdirSync(workRoot)).toEqual([]);
    } finally {
      rmSync(workRoot, { recursive: true, force: true });
    }
  });

  it('does not hand the worker environment to user code', async () => {
    process.env.NOETL_TOOLS_TEST_SECRET = 'do-not-leak';
    try {
      expect(await new PythonTool().run({ code: 'result = os.environ.get("NOETL_TOOLS_TEST_SECRET")' }, context())).toBeNull();
    } finally {
      delete process.env.NOETL_TOOLS_TEST_SECRET;
    }
  });
});

/** Alive: listed in /proc and not a zombie (a zombie has exited; only its exit status is left). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('PythonTool isolation (issue 15 defect 6)', () => {
  const tool = new PythonTool();

  beforeAll(() => {
    // Dropping to an unprivileged user needs root: this machine runs the tests as root, as CI does.
    expect(process.getuid?.()).toBe(0);
  });

  it('runs the step as an unprivileged user, in a private working directory', async () => {
    const result = (await tool.run(
      {
        code: 'import pwd\nresult = {"uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "user": pwd.getpwuid(os.getuid()).pw_name, "cwd": os.getcwd(), "home": os.environ.get("HOME")}',
      },
      testToolContext(),
    )) as Record<string, unknown>;
    expect(result).toMatchObject({ user: 'nobody' });
    expect(result.uid).not.toBe(0);
    expect(result.euid).not.toBe(0);
    expect(result.gid).not.toBe(0);
    expect(result.home).toBe(result.cwd);
  });

  it("cannot read the server's secrets from its environment or from /proc/<ppid>/environ", async () => {
    const code = [
      'def read(path):',
      '    try:',
      '        with open(path, "rb") as f:',
      '            return "readable:" + str(len(f.read()))',
      '    except OSError as e:',
      '        return type(e).__name__',
      'result = {',
      '    "env": sorted(k for k in os.environ if k.startswith("NOETL_") or k.endswith("_URL") or "KEY" in k or "SECRET" in k),',
      '    "parent": read("/proc/%d/environ" % os.getppid()),',
      '    "parent_mem": read("/proc/%d/mem" % os.getppid()),',
      '}',
    ].join('\n');
    expect(await tool.run({ code }, testToolContext())).toEqual({ env: [], parent: 'PermissionError', parent_mem: 'PermissionError' });
  });

  it('applies rlimits before user code: address space, open files and CPU seconds', async () => {
    const limited = new PythonTool({ limits: { addressSpaceBytes: 512 * 1024 * 1024, openFiles: 64 } });
    const result = await limited.run(
      {
        code: 'import resource\nresult = [resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_NOFILE), resource.getrlimit(resource.RLIMIT_CPU)]',
        timeout: 7,
      },
      testToolContext(),
    );
    expect(result).toEqual([
      [536870912, 536870912],
      [64, 64],
      [8, 8],
    ]);
    const bomb = await callFailure(limited.run({ code: 'x = bytearray(1024 * 1024 * 1024)' }, testToolContext()));
    expect(bomb.info).toMatchObject({ kind: 'code', code: 'MemoryError' });
  });

  it('caps the size of any file a step writes (RLIMIT_FSIZE), in its directory or in /tmp', async () => {
    const limited = new PythonTool({ limits: { fileBytes: 1024 * 1024 } });
    const fill = (path: string) => `with open(${path}, "wb") as f:\n    f.write(b"x" * (2 * 1024 * 1024))`;
    const outside = `/tmp/noetl-fsize-${randomBytes(4).toString('hex')}`;
    try {
      for (const path of ['"big.bin"', `"${outside}"`]) {
        const failure = await callFailure(limited.run({ code: fill(path) }, testToolContext()));
        expect({ path, info: failure.info }).toMatchObject({
          path,
          info: { kind: 'code', code: 'OSError', message: expect.stringContaining('File too large') },
        });
      }
    } finally {
      rmSync(outside, { force: true });
    }
    expect(await limited.run({ code: 'import resource\nresult = resource.getrlimit(resource.RLIMIT_FSIZE)' }, testToolContext())).toEqual([
      1048576, 1048576,
    ]);
  });

  describe('leaves no process behind', () => {
    /** A `sleep` duration no other process on the machine uses, so the check finds this suite's sleepers only. */
    const marker = `300.${randomBytes(3).readUIntBE(0, 3)}`;
    const SPAWN = [
      'import subprocess, time',
      `children = [subprocess.Popen(["sleep", "${marker}"]) for _ in range(3)]`,
      '# A child in a session of its own is outside the process group.',
      `children.append(subprocess.Popen(["sleep", "${marker}"], start_new_session=True))`,
      '# Grandchildren whose parents exit at once are orphaned.',
      `subprocess.run(["sh", "-c", "(sleep ${marker} &) ; (setsid sleep ${marker} &) ; exit 0"])`,
      'print("PIDS " + " ".join(str(c.pid) for c in children), flush=True)',
    ].join('\n');

    const runAndCollect = async (ending: string, timeout?: number): Promise<{ pids: number[]; outcome: unknown }> => {
      let printed = '';
      const ctx = testToolContext({}, { onOutput: (_stream, text) => (printed += text) });
      const outcome = await tool.run({ code: `${SPAWN}\n${ending}`, ...(timeout ? { timeout } : {}) }, ctx).then(
        (value) => ({ ok: value }),
        (error: unknown) => ({ error }),
      );
      const pids = (/PIDS ([\d ]+)/.exec(printed)?.[1] ?? '').split(' ').filter(Boolean).map(Number);
      expect(pids).toHaveLength(4);
      return { pids, outcome };
    };

    /** Living processes whose command line holds the marker: the sleepers, whether or not the step knew their pids. */
    const sleepers = (): number[] =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .map(Number)
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) && alive(pid);
          } catch {
            return false;
          }
        });

    const expectAllGone = async (pids: number[]): Promise<void> => {
      await waitFor(async () => pids.every((pid) => !alive(pid)) && sleepers().length === 0, {
        timeoutMs: 5_000,
        description: `pids ${pids.join(', ')} and every sleep ${marker} to be gone (left: ${sleepers().join(', ')})`,
      });
    };

    it('after success', async () => {
      const { pids, outcome } = await runAndCollect('result = "done"');
      expect(outcome).toEqual({ ok: 'done' });
      await expectAllGone(pids);
    });

    it('after a failure', async () => {
      const { pids, outcome } = await runAndCollect('raise ValueError("boom")');
      expect((outcome as { error: { info: { code: string } } }).error.info.code).toBe('ValueError');
      await expectAllGone(pids);
    });

    it('after a timeout', async () => {
      const { pids, outcome } = await runAndCollect('time.sleep(60)', 2);
      expect((outcome as { error: { info: { kind: string } } }).error.info.kind).toBe('timeout');
      await expectAllGone(pids);
    });
  });
});
