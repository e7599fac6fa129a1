import { innermostFrame, parsePythonOutcome, pythonExceptionError, pythonExitError } from './python-outcome';

const TRACEBACK = `Traceback (most recent call last):
  File "<code>", line 5, in <module>
    check(x)
  File "<code>", line 2, in check
    assert x == 2, "x should be 2"
           ^^^^^^
AssertionError: x should be 2
`;

describe('parsePythonOutcome', () => {
  it('reads a result, including a null one', () => {
    expect(parsePythonOutcome('{"ok":true,"result":{"a":[1]}}')).toEqual({ ok: true, result: { a: [1] } });
    expect(parsePythonOutcome('{"ok":true,"result":null}')).toEqual({ ok: true, result: null });
  });

  it('reads an exception', () => {
    expect(parsePythonOutcome(JSON.stringify({ ok: false, error: { type: 'KeyError', message: "'x'", traceback: 'tb' } }))).toEqual({
      ok: false,
      error: { type: 'KeyError', message: "'x'", traceback: 'tb' },
    });
  });

  it('gives undefined for nothing or garbage (the process died)', () => {
    expect(parsePythonOutcome('')).toBeUndefined();
    expect(parsePythonOutcome('{"ok":tr')).toBeUndefined();
    expect(parsePythonOutcome('[1]')).toBeUndefined();
  });
});

describe('innermostFrame', () => {
  it('keeps the last frame of user code with its source lines', () => {
    expect(innermostFrame(TRACEBACK)).toBe('  File "<code>", line 2, in check\n    assert x == 2, "x should be 2"\n           ^^^^^^');
    expect(innermostFrame('SyntaxError: bad')).toBe('');
  });
});

describe('pythonExceptionError', () => {
  it('is kind code with the exception type as code, its message and the innermost frame', () => {
    const err = pythonExceptionError({ type: 'AssertionError', message: 'x should be 2', traceback: TRACEBACK });
    expect(err.info).toEqual({
      kind: 'code',
      retryable: false,
      code: 'AssertionError',
      message:
        'python: AssertionError: x should be 2\n  File "<code>", line 2, in check\n    assert x == 2, "x should be 2"\n           ^^^^^^',
    });
    expect(err.data).toEqual({ exception: 'AssertionError', message: 'x should be 2', traceback: TRACEBACK });
  });

  it('shows the bare type when the message is empty', () => {
    expect(pythonExceptionError({ type: 'AssertionError', message: '', traceback: '' }).info.message).toBe('python: AssertionError');
  });
});

describe('pythonExitError', () => {
  it('says how the process ended and shows the end of stderr', () => {
    expect(pythonExitError(3, null, 'a\nb\n').info).toMatchObject({
      kind: 'code',
      code: 'PythonExit',
      message: 'python: the process exited with code 3 without a result\na\nb',
    });
    expect(pythonExitError(null, 'SIGKILL', '').info.message).toBe('python: the process was killed by SIGKILL without a result');
  });
});
