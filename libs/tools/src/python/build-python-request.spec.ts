import { CallError } from '@noetl/dsl';
import { buildPythonRequest, pythonArgs, pythonEnv, pythonSource, serializePythonRequest } from './build-python-request';
import { PYTHON_BOOTSTRAP } from './python-bootstrap';

describe('pythonSource', () => {
  it('takes code, or the code of an inline script source', () => {
    expect(pythonSource({ code: 'result = 1' })).toBe('result = 1');
    expect(pythonSource({ script: { uri: 'inline', source: { type: 'inline', code: 'result = 2' } } })).toBe('result = 2');
  });

  it('rejects missing code and non-inline sources', () => {
    expect(() => pythonSource({})).toThrow(CallError);
    expect(() => pythonSource({ code: '   ' })).toThrow(CallError);
    expect(() => pythonSource({ script: { uri: 'gs://bucket/x.py', source: { type: 'gcs', path: 'x.py' } } })).toThrow(/not supported/);
  });
});

describe('buildPythonRequest', () => {
  it('sends code, input, dict libs and the scope as context', () => {
    expect(buildPythonRequest({ code: 'c', input: { a: 1 }, libs: { tm: 'time', bad: 3 } }, { workload: {} })).toEqual({
      code: 'c',
      input: { a: 1 },
      libs: { tm: 'time' },
      context: { workload: {} },
    });
  });

  it('ignores the list form of libs and defaults input and context to {}', () => {
    expect(buildPythonRequest({ code: 'c', libs: ['json'] }, undefined)).toEqual({ code: 'c', input: {}, context: {} });
  });

  it('binds an input that rendered undefined as None (null), so python sees the name', () => {
    expect(buildPythonRequest({ code: 'c', input: { prev: undefined, n: 1 } }, undefined).input).toEqual({ prev: null, n: 1 });
  });

  it('carries the limits the bootstrap applies before user code', () => {
    expect(buildPythonRequest({ code: 'c' }, undefined, { cpu_seconds: 11, open_files: 256 }).limits).toEqual({
      cpu_seconds: 11,
      open_files: 256,
    });
  });

  it('rejects an input that is not a mapping', () => {
    expect(() => buildPythonRequest({ code: 'c', input: [1] }, undefined)).toThrow(CallError);
  });
});

describe('serializePythonRequest', () => {
  it('writes bigints as strings and refuses cycles with a config error', () => {
    expect(serializePythonRequest({ code: 'c', input: { n: BigInt(7) }, context: {} })).toBe('{"code":"c","input":{"n":"7"},"context":{}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => serializePythonRequest({ code: 'c', input: {}, context: cyclic })).toThrow(CallError);
  });
});

describe('pythonArgs', () => {
  it('runs the bootstrap unbuffered in UTF-8 mode, without a shell', () => {
    expect(pythonArgs()).toEqual(['-u', '-X', 'utf8', '-c', PYTHON_BOOTSTRAP]);
    expect(PYTHON_BOOTSTRAP).toContain('os.fdopen(3');
  });
});

describe('pythonEnv', () => {
  it('keeps what running python needs and drops the rest', () => {
    const env = pythonEnv(
      {
        PATH: '/bin',
        HOME: '/h',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        PYENV_ROOT: '/p',
        DATABASE_URL: 'postgres://u:pw@h/d',
        NOETL_SECRET_KEY: 'k',
        https_proxy: 'http://p',
      },
      { EXTRA: 'x', PATH: undefined },
    );
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/h',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      PYENV_ROOT: '/p',
      https_proxy: 'http://p',
      EXTRA: 'x',
      PYTHONDONTWRITEBYTECODE: '1',
    });
  });
});
