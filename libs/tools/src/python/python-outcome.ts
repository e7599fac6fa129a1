import { CallError } from '@noetl/dsl';
import { isRecord } from '../shared/read-config';

export interface PythonException {
  type: string;
  message: string;
  traceback: string;
}

export type PythonOutcome = { ok: true; result: unknown } | { ok: false; error: PythonException };

export const PYTHON_NOT_FOUND = 'python3 not found on PATH (set NOETL_PYTHON=off to disable python steps)';
export const PYTHON_DISABLED = 'python tool disabled (NOETL_PYTHON=off)';

/** What the bootstrap wrote on fd 3; undefined when it wrote nothing usable (the process died). */
export function parsePythonOutcome(text: string): PythonOutcome | undefined {
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  if (parsed.ok === true) return { ok: true, result: parsed.result ?? null };
  if (parsed.ok === false && isRecord(parsed.error)) {
    const e = parsed.error;
    return {
      ok: false,
      error: {
        type: typeof e.type === 'string' ? e.type : 'Exception',
        message: typeof e.message === 'string' ? e.message : '',
        traceback: typeof e.traceback === 'string' ? e.traceback : '',
      },
    };
  }
  return undefined;
}

/** An uncaught exception: kind `code`, the type as `code`, the message and the innermost frame of user code. */
export function pythonExceptionError(error: PythonException): CallError {
  const text = error.message.length > 2000 ? `${error.message.slice(0, 2000)}...` : error.message;
  const head = text ? `${error.type}: ${text}` : error.type;
  const frame = innermostFrame(error.traceback);
  return new CallError(
    { kind: 'code', message: `python: ${head}${frame ? `\n${frame}` : ''}`, retryable: false, code: error.type },
    { exception: error.type, message: error.message, traceback: error.traceback },
  );
}

/** The process ended without a result (killed, os._exit, interpreter crash, its CPU time limit). */
export function pythonExitError(
  exitCode: number | null,
  signal: string | null,
  stderrTail: string,
  limits?: { cpu_seconds?: number },
): CallError {
  const how =
    signal === 'SIGXCPU'
      ? `used up its CPU time limit (${limits?.cpu_seconds ?? '?'} s)`
      : signal
        ? `was killed by ${signal}`
        : `exited with code ${exitCode ?? 'unknown'}`;
  const tail = lastLines(stderrTail, 10);
  return new CallError({
    kind: 'code',
    message: `python: the process ${how} without a result${tail ? `\n${tail}` : ''}`,
    retryable: false,
    code: 'PythonExit',
  });
}

/** `  File "<code>", line 3, in <module>` and its source line(s), from a formatted traceback. */
export function innermostFrame(traceback: string): string {
  const lines = traceback.replace(/\s+$/, '').split('\n');
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^\s*File "/.test(lines[i] ?? '')) {
      start = i;
      break;
    }
  }
  if (start === -1) return '';
  let end = start + 1;
  while (end < lines.length && (lines[end] ?? '').startsWith(' ')) end++;
  return lines.slice(start, end).join('\n');
}

function lastLines(text: string, count: number): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.slice(-count).join('\n').trim();
}
