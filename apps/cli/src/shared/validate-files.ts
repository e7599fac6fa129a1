import { formatProblem, parsePlaybook, undefinedTemplateNames } from '@noetl/dsl';
import { readPlaybookFile } from './read-playbook-file';

/**
 * Checks each file; prints `file:line:column path message` per problem. A
 * playbook registration would accept is also checked for template names that
 * nothing defines: a member read of one is a problem, a bare read a warning
 * (printed, not counted). Returns the number of problems.
 */
export function validateFiles(files: string[], out: (line: string) => void): number {
  let problems = 0;
  for (const file of files) {
    const text = readPlaybookFile(file, out);
    if (text === undefined) {
      problems += 1;
      continue;
    }
    const result = parsePlaybook(text);
    const names = undefinedTemplateNames(text);
    const found = [...result.problems, ...names.errors];
    for (const problem of [...found, ...names.warnings].sort((a, b) => (a.line ?? 0) - (b.line ?? 0))) out(formatProblem(file, problem));
    problems += found.length;
  }
  return problems;
}
