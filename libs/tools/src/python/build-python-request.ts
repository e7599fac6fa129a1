import { isRecord } from '../shared/read-config';
import { invalidConfig } from '../shared/tool-errors';
import { PYTHON_BOOTSTRAP } from './python-bootstrap';

/** The document the bootstrap reads on stdin. */
export interface PythonRequest {
  code: string;
  input: Record<string, unknown>;
  /** `{alias: module}`; the list form is ignored (as NoETL's Python executor does). */
  libs?: Record<string, string>;
  context: Record<string, unknown>;
  /** Applied by the bootstrap before any user code (soft = hard, so the code cannot raise them). */
  limits?: PythonLimits;
}

/** Resource limits of the interpreter and every process it starts; an absent one is left as inherited. */
export interface PythonLimits {
  cpu_seconds?: number;
  address_space_bytes?: number;
  open_files?: number;
  /** Processes of the step's user, system-wide (RLIMIT_NPROC): set only for a dedicated sandbox user. */
  processes?: number;
  /** The largest file a process may write (RLIMIT_FSIZE); a write past it fails with EFBIG (python ignores SIGXFSZ). */
  file_bytes?: number;
}

/** `code`, or `script: {uri: inline, source: {type: inline, code}}`. */
export function pythonSource(config: Record<string, unknown>): string {
  if (typeof config.code === 'string' && config.code.trim() !== '') return config.code;
  const script = config.script;
  if (isRecord(script)) {
    const source = isRecord(script.source) ? script.source : undefined;
    const type = source?.type ?? script.uri ?? 'inline';
    if (type !== 'inline') throw invalidConfig('python', `script source type "${String(type)}" is not supported (only inline)`);
    const code = source?.code ?? script.code;
    if (typeof code === 'string' && code.trim() !== '') return code;
  }
  throw invalidConfig('python', 'code (or an inline script source) is required');
}

export function buildPythonRequest(
  config: Record<string, unknown>,
  scope: Record<string, unknown> | undefined,
  limits?: PythonLimits,
): PythonRequest {
  const raw = config.input ?? {};
  if (!isRecord(raw)) throw invalidConfig('python', 'input must be a mapping');
  // A declared input whose template rendered undefined is still bound, as None (RESULT_SHAPES s11:
  // undefined renders falsy, never raises); JSON would otherwise drop it and python raise NameError.
  const input = Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, value === undefined ? null : value]));
  const request: PythonRequest = { code: pythonSource(config), input, context: scope ?? {}, ...(limits ? { limits } : {}) };
  if (isRecord(config.libs)) {
    const libs: Record<string, string> = {};
    for (const [alias, module] of Object.entries(config.libs)) if (typeof module === 'string' && module !== '') libs[alias] = module;
    request.libs = libs;
  }
  return request;
}

/** JSON for stdin: bigints as strings; a value JSON cannot hold is a config error. */
export function serializePythonRequest(request: PythonRequest): string {
  try {
    return JSON.stringify(request, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  } catch (err) {
    throw invalidConfig('python', `input or context cannot be sent to python: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Unbuffered (user output streams live), UTF-8 stdio whatever the locale, the bootstrap as the program. */
export function pythonArgs(): string[] {
  return ['-u', '-X', 'utf8', '-c', PYTHON_BOOTSTRAP];
}

const INHERITED_ENV = [
  /^PATH$/,
  /^HOME$/,
  /^USER$/,
  /^LOGNAME$/,
  /^LANG(UAGE)?$/,
  /^LC_[A-Z]+$/,
  /^TZ$/,
  /^TE?MP(DIR)?$/,
  /^PYENV_(ROOT|VERSION)$/,
  /^VIRTUAL_ENV$/,
  /^PYTHON(PATH|HOME)$/,
  /^SSL_CERT_(FILE|DIR)$/,
  /^REQUESTS_CA_BUNDLE$/,
  /^(HTTPS?|NO)_PROXY$/i,
  /^SYSTEMROOT$/i,
];

/**
 * The interpreter's environment: only what locating and running python needs from `base`
 * (PATH, HOME, locale, TZ, temp dirs, pyenv/venv, PYTHONPATH, CA bundles, proxies), never the
 * worker's secrets (database URLs, encryption keys); `extra` adds to it.
 */
export function pythonEnv(
  base: Record<string, string | undefined>,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && INHERITED_ENV.some((re) => re.test(key))) env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  env.PYTHONDONTWRITEBYTECODE = '1';
  return env;
}
