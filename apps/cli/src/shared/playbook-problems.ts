import { formatProblem, type Problem } from '@noetl/dsl';

/**
 * Prints each problem of a rejected registration (the `details` of an
 * `invalid_playbook` error, or the `errors` of the server's 422) as
 * `file:line:column path message`, as `noetl validate` does. Says whether
 * `details` was such a list; if not, the caller reports the error itself.
 */
export function printProblems(file: string, details: unknown, print: (line: string) => void): boolean {
  if (!Array.isArray(details) || details.length === 0 || !details.every(isProblem)) return false;
  for (const problem of details) print(formatProblem(file, problem));
  return true;
}

function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const { path, message } = value as Record<string, unknown>;
  return typeof message === 'string' && (path === undefined || typeof path === 'string');
}
