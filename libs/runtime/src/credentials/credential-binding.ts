import picomatch from 'picomatch';
import { RuntimeError } from '../runtime-error';

const MAX_GLOBS = 100;
const MAX_GLOB_LENGTH = 200;

/** The paths a credential may be bound to: 1-100 globs of 1-200 characters that picomatch compiles. */
export function assertPathGlobs(name: string, globs: readonly string[]): void {
  if (globs.length === 0 || globs.length > MAX_GLOBS) {
    throw new RuntimeError('invalid_request', `credential "${name}": allowed_paths needs 1-${MAX_GLOBS} globs, or null for any playbook`);
  }
  for (const glob of globs) {
    if (typeof glob !== 'string' || glob.trim() === '' || glob.length > MAX_GLOB_LENGTH) {
      throw new RuntimeError(
        'invalid_request',
        `credential "${name}": each of allowed_paths must be a glob of 1-${MAX_GLOB_LENGTH} characters`,
      );
    }
    try {
      picomatch(glob, { strictBrackets: true });
    } catch (error) {
      throw new RuntimeError(
        'invalid_request',
        `credential "${name}": allowed_paths glob "${glob}" is not valid: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/**
 * Refuses a credential to an execution whose playbook path none of its
 * globs matches, or, when the tenant requires binding, to every execution
 * while it names no paths (`credential_not_allowed`).
 */
export function assertBound(name: string, binding: { allowed_paths: string[] | null; require_binding: boolean }, path: string): void {
  const globs = binding.allowed_paths;
  if (globs === null) {
    if (!binding.require_binding) return;
    throw new RuntimeError(
      'credential_not_allowed',
      `credential "${name}" is bound to no playbook, and this tenant requires binding: give it allowed_paths`,
    );
  }
  if (globs.some((glob) => picomatch.isMatch(path, glob))) return;
  throw new RuntimeError(
    'credential_not_allowed',
    `credential "${name}" is not bound to playbook "${path}" (allowed_paths: ${globs.join(', ')})`,
  );
}
